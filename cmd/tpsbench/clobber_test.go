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

// TestNothingDestroyed: no command truncates or removes a file it did not
// create. An existing output is refused before anything is measured or
// written, unless --force; a failed write leaves what was there; a
// device is written, never replaced.
func TestNothingDestroyed(t *testing.T) {
	dir := t.TempDir()
	records := filepath.Join(dir, "a.jsonl")
	if code, _, errs := cli(t, "run", "--engine-model", "tiny", "--requests", "2", "--max-tokens", "2", "--records", records, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mine := filepath.Join(dir, "mine")
	const precious = "the user's own file\n"
	keep := func(what string) {
		t.Helper()
		if b, err := os.ReadFile(mine); err != nil || string(b) != precious {
			t.Fatalf("%s: the file is now %q (%v)", what, b, err)
		}
	}
	os.WriteFile(mine, []byte(precious), 0o644)
	for _, args := range [][]string{
		{"model", "synth", "--dtype", "q4_k", "-o", mine}, // an unsupported format
		{"model", "synth", "--shape", "tiny", "-o", mine},
		{"report", records, "--out", mine},
		{"compare", records, records, "--out", mine},
		{"merge", "-o", mine, records},
		// refused before a request is sent: nothing listens on port 9
		{"run", "--url", "http://127.0.0.1:9", "--records", mine, "-q"},
		{"run", "--url", "http://127.0.0.1:9", "--out", mine, "-q"},
	} {
		code, _, errs := cli(t, args...)
		if code != exitUsage || (!strings.Contains(errs, mine+" exists") && !strings.Contains(errs, "--dtype")) {
			t.Errorf("%v: exit %d, %q: want a usage error saying the file exists (or the format is unknown)", args, code, errs)
		}
		if strings.Contains(errs, "connect") {
			t.Errorf("%v: a request was sent before the output was checked: %q", args, errs)
		}
		keep(strings.Join(args[:2], " "))
	}
	// asked to, they replace it, each with what it writes
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"model", "synth", "--shape", "tiny", "--force", "-o", mine}, "GGUF"},
		{[]string{"report", records, "--format", "csv", "--force", "--out", mine}, "label,"},
		{[]string{"merge", "--force", "-o", mine, records}, `{"`},
	} {
		if code, _, errs := cli(t, c.args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		if b, _ := os.ReadFile(mine); !strings.HasPrefix(string(b), c.want) {
			t.Errorf("%v: the file starts %.20q, want %q", c.args, b, c.want)
		}
	}
	// devices are written where they are, with or without --force
	for _, args := range [][]string{
		{"model", "synth", "--dtype", "q4_k", "-o", os.DevNull},
		{"model", "synth", "--shape", "tiny", "-o", os.DevNull},
		{"report", records, "--out", os.DevNull},
		{"merge", "--force", "-o", os.DevNull, records},
	} {
		cli(t, args...)
		if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%v: %s is no longer a device (%v, %v)", args, os.DevNull, st.Mode(), err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the folder holds %d files, want the records and mine (no temporary files left)", len(entries))
	}
}
