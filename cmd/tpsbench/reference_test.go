package main

import (
	"os"
	"strings"
	"testing"
)

// TestCLIReferenceCurrent: docs/cli.md is what `tpsbench reference`
// writes from the commands, so the docs cannot drift from --help. After
// changing a command or a flag: go run ./cmd/tpsbench reference > docs/cli.md
func TestCLIReferenceCurrent(t *testing.T) {
	code, out, errs := cli(t, "reference")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != out {
		t.Errorf("docs/cli.md is not what the commands say; run: go run ./cmd/tpsbench reference > docs/cli.md")
	}
	for _, cmd := range []string{"## tpsbench run\n", "## tpsbench serve\n", "## tpsbench model synth\n", "--max-concurrency", "--trace-input-scale"} {
		if !strings.Contains(out, cmd) {
			t.Errorf("the reference lacks %q", cmd)
		}
	}
	if strings.Contains(out, "## tpsbench reference") {
		t.Error("the hidden reference command lists itself")
	}
}
