package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestEstimate(t *testing.T) {
	// Llama 2 7B in F16: 13.48 GB of weights, 536,870,912 B of KV cache a
	// sequence of 1,024 tokens; an L4's 24 GB hold 19 sequences beside the
	// weights (10.52e9 / 536,870,912 = 19.6), an A100's 80 GB 123.
	code, out, errs := cli(t, "estimate", "--model", "llama-2-7b", "--dtype", "f16", "--hardware", "a100-80gb,l4", "--batch", "1,16,32")
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 11 && (f[0] == "a100-80gb" || f[0] == "l4") {
			rows++
			if want := map[bool]string{true: "NO", false: "yes"}[f[0] == "l4" && f[2] == "32"]; f[10] != want {
				t.Errorf("%s batch %s: fits %s, want %s", f[0], f[2], f[10], want)
			}
		}
	}
	if code != 0 || rows != 6 || !strings.Contains(out, "l4: its 24 GB hold the weights and at most 19 sequences of 1024 tokens") ||
		!strings.Contains(out, "a100-80gb: its 80 GB hold the weights and at most 123 sequences") || !strings.Contains(out, "Rows marked NO") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, bad := range [][]string{{"estimate", "--model", "gpt-9"}, {"estimate", "--hardware", "abacus"}, {"estimate", "--dtype", "q3"}, {"estimate", "--batch", "0"}} {
		if code, _, _ := cli(t, bad...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// TestEstimateThisMachine: estimate of this machine measures each row's
// bandwidth at its step's bytes and says so; a shape is estimated in the
// engine's F32 formats.
func TestEstimateThisMachine(t *testing.T) {
	code, out, errs := cli(t, "estimate", "--model", "tiny", "--hardware", "this", "--batch", "1,4", "--context", "64")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := regexp.MustCompile(`(?m)^\s+this\s+(\d+)\s+[14]\s`).FindAllStringSubmatch(out, -1)
	if len(rows) != 2 || rows[0][1] == "0" || !strings.Contains(out, "weights as in the file") || !strings.Contains(out, "KV cache f32") ||
		!strings.Contains(out, "Bandwidth of this machine: the engine's own batch-1 products") {
		t.Errorf("estimate:\n%s", out)
	}
}
