package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsNeverClobberInputs: an output that is an input (by name or
// through a link) or another output is refused before anything is
// written, and the input keeps every record.
func TestOutputsNeverClobberInputs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if code, _, errs := cli(t, "run", "--engine-model", "tiny", "--requests", "3", "--max-tokens", "2", "--records", a, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	before, _ := os.ReadFile(a)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	prompts := filepath.Join(dir, "prompts.txt")
	os.WriteFile(prompts, []byte("hello\n"), 0o644)
	cases := [][]string{
		{"merge", "-o", a, a},
		{"merge", "-o", link, a},
		{"report", a, "--out", a},
		{"report", a, "--out", link},
		{"compare", a, a, "--out", a},
		{"run", "--engine-model", "tiny", "--records", prompts, "--prompts", prompts, "-q"},
		{"run", "--engine-model", "tiny", "--records", filepath.Join(dir, "x"), "--out", filepath.Join(dir, "x"), "-q"},
	}
	for _, args := range cases {
		code, _, errs := cli(t, args...)
		if code != exitUsage || !strings.Contains(errs, "tpsbench: ") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	after, _ := os.ReadFile(a)
	if string(after) != string(before) {
		t.Fatalf("the records file changed: %d bytes, was %d", len(after), len(before))
	}
	if got, _ := os.ReadFile(prompts); string(got) != "hello\n" {
		t.Fatalf("the prompts file changed: %q", got)
	}
}
