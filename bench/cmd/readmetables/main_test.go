package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	script  = "#!/bin/sh\necho \"#### Speed\"\necho\necho \"| model | tok/s |\"\necho \"|---|---|\"\n"
	results = "#### Speed\n\n| model | tok/s |\n|---|---|\n| 15m | 3.0 |\n"
	begin   = "<!-- bench/results/speed.md: written by bench/speed.sh; copied -->\n"
	end     = "<!-- end bench/results/speed.md -->"
)

// setup writes a repository of a README, one script and its results.
func setup(t *testing.T, readme, script string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"README.md": readme, "bench/speed.sh": script, "bench/results/speed.md": results} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "README.md")
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name, readme, script, problem string
	}{
		{"in step", "intro\n" + begin + results + end + "\nafter\n", script, ""},
		{"a figure edited by hand", "intro\n" + begin + strings.Replace(results, "3.0", "3.5", 1) + end + "\n", script, "differs from the file"},
		{"a column the script dropped", begin + results + end, strings.Replace(script, " tok/s |", " TPS |", 1), `no longer prints "| model | tok/s |"`},
		{"a heading the script renamed", begin + results + end, strings.Replace(script, "Speed", "Engine speed", 1), `no longer prints "#### Speed"`},
		{"no end", begin + results, script, "no \"<!-- end bench/results/speed.md -->\""},
		{"no block", "just prose\n", script, "no blocks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := run(setup(t, c.readme, c.script), false)
			switch {
			case c.problem == "" && err != nil:
				t.Fatalf("want no problem, got %v", err)
			case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem)):
				t.Fatalf("want a problem naming %q, got %v", c.problem, err)
			}
		})
	}
}

// TestWrite: -write puts the file in its block and leaves the rest; the
// check then passes.
func TestWrite(t *testing.T) {
	readme := setup(t, "intro\n"+begin+"| stale |\n"+end+"\nafter\n", script)
	if err := run(readme, true); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(readme)
	if want := "intro\n" + begin + results + end + "\nafter\n"; string(got) != want {
		t.Fatalf("README after -write:\n%s\nwant:\n%s", got, want)
	}
	if err := run(readme, false); err != nil {
		t.Fatal(err)
	}
}

// TestDocsPages: a page of docs/ with a block is checked and written as
// the README is, its paths from the repository root; one without is left.
func TestDocsPages(t *testing.T) {
	readme := setup(t, begin+results+end+"\n", script)
	docs := filepath.Join(filepath.Dir(readme), "docs")
	os.MkdirAll(docs, 0o755)
	page := filepath.Join(docs, "speed.md")
	os.WriteFile(page, []byte("# Speed\n\n"+begin+"| stale |\n"+end+"\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "prose.md"), []byte("no tables\n"), 0o644)
	if err := run(readme, false); err == nil || !strings.Contains(err.Error(), "docs/speed.md") {
		t.Fatalf("a stale block in a docs page: %v", err)
	}
	if err := run(readme, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(page); string(got) != "# Speed\n\n"+begin+results+end+"\n" {
		t.Fatalf("docs page after -write:\n%s", got)
	}
	if err := run(readme, false); err != nil {
		t.Fatal(err)
	}
}
