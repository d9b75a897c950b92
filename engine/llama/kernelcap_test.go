package llama

import (
	"strings"
	"testing"
)

func TestParseKernelCap(t *testing.T) {
	for _, c := range []struct {
		in   string
		want kernelCap
		err  string
	}{
		{"", capAVX512, ""},
		{"avx512", capAVX512, ""},
		{"avx2", capAVX2, ""},
		{"go", capGo, ""},
		{"AVX2", capAVX512, `TPSBENCH_ENGINE_KERNELS="AVX2": want avx512, avx2 or go`},
		{"sse", capAVX512, "want avx512, avx2 or go"},
	} {
		got, err := parseKernelCap(c.in)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("parseKernelCap(%q) = %v, %v; want %v, %q", c.in, got, err, c.want, c.err)
		}
	}
}

// TestKernelsFollowTheCap: what Kernels names is within the cap the
// environment set for this process (the test command runs the engine's
// tests under each).
func TestKernelsFollowTheCap(t *testing.T) {
	name := Kernels()
	t.Logf("kernels: %s (cap %d)", name, allowedKernels)
	switch {
	case allowedKernels == capGo && name != "go":
		t.Errorf("capped at go, kernels %s", name)
	case allowedKernels == capAVX2 && strings.Contains(name, "avx512"):
		t.Errorf("capped at avx2, kernels %s", name)
	}
}
