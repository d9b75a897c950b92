package workload

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCorpus: prompts made of a corpus are its lines, drawn whole, the
// last cut to make exactly the words asked; blank lines are left out; the
// same seed, the same prompt.
func TestCorpus(t *testing.T) {
	lines, err := parseCorpus([]byte("Shall I compare thee to a summer's day?\n\n  Thou art more lovely and more temperate:\nRough winds\n"))
	if err != nil || len(lines) != 3 {
		t.Fatalf("%v %v", lines, err)
	}
	s := Synthetic{Corpus: lines, InputTokens: 20, OutputTokens: 4, Seed: 5}
	it := s.Item(3, false)
	if n := len(strings.Fields(it.Prompt)); n != 20 {
		t.Errorf("prompt of %d words, want 20: %q", n, it.Prompt)
	}
	whole := map[string]bool{}
	for _, l := range lines {
		whole[strings.Join(l, " ")] = true
	}
	parts := strings.Split(it.Prompt, "\n")
	for i, p := range parts[:len(parts)-1] {
		if !whole[p] {
			t.Errorf("line %d %q is not a whole line of the corpus", i, p)
		}
	}
	if again := s.Item(3, false); again.Prompt != it.Prompt {
		t.Error("the same seed gave another prompt")
	}
	if _, err := parseCorpus([]byte("\n \n")); err == nil {
		t.Error("a corpus without words accepted")
	}
	if got := corpusText(lines, rand.New(rand.NewPCG(1, 2)), 3); len(strings.Fields(got)) != 3 {
		t.Errorf("%q", got)
	}
}
