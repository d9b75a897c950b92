package main

import (
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
