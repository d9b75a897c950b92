package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEquivalentsNameSites: every mutant bench/mutation-equivalent.txt
// sets aside is one the tool still makes: an entry whose line changed
// or went sets nothing aside, and must be looked at again.
func TestEquivalentsNameSites(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	keys := map[string]bool{}
	for _, pkg := range []string{"./metrics", "./record", "./trace", "./client"} {
		sites, err := collect(root, pkg, "*.go")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sites {
			keys[s.key()] = true
		}
	}
	equivalent := readEquivalent(filepath.Join(root, "bench", "mutation-equivalent.txt"))
	if len(equivalent) == 0 {
		t.Fatal("no equivalent mutants read")
	}
	for e := range equivalent {
		if !keys[e] {
			t.Errorf("no mutant %q: its line changed, or went", e)
		}
	}
}

// TestConstantsBesideErrors: the numbers and booleans returned beside an
// error that cannot be nil are set aside, and only those.
func TestConstantsBesideErrors(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "fmt"

func f(x int) (int, bool, error) {
	if x > 0 {
		return 7, false, fmt.Errorf("bad")
	}
	return 8, true, nil
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sites, err := collect(dir, ".", "*.go")
	if err != nil {
		t.Fatal(err)
	}
	aside := map[string]bool{}
	for _, s := range sites {
		if s.kind == "int" || s.kind == "bool" {
			aside[s.from] = s.besideError
		}
	}
	want := map[string]bool{"7": true, "false": true, "8": false, "true": false, "0": false}
	for from, w := range want {
		if got, ok := aside[from]; !ok || got != w {
			t.Errorf("%s: set aside %v (found %v), want %v", from, got, ok, w)
		}
	}
}
