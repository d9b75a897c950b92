package tokenizer

import (
	"slices"
	"strings"
)

// The tokens a text may spell out and get as themselves (control,
// user-defined and unknown tokens: "<|im_start|>", "[INST]", "<s>"), as
// llama.cpp's server parses a prompt: the text is cut at each, longest
// token first, before the model's own tokenizer sees the pieces between.

// fragment is a piece of text, or a special token (id >= 0).
type fragment struct {
	text string
	id   int
}

// indexSpecial lists the special tokens longest first (ids ascending
// among equals) and sets the ones whose neighbouring whitespace they take.
func (t *Tokenizer) indexSpecial(modelName string) {
	t.special = t.special[:0]
	for id, typ := range t.Types {
		if (typ == TypeControl || typ == TypeUserDefined || typ == TypeUnknown) && t.Pieces[id] != "" {
			t.special = append(t.special, id)
		}
	}
	slices.SortStableFunc(t.special, func(a, b int) int { return len(t.Pieces[b]) - len(t.Pieces[a]) })
	// Phi-3's special tokens take the whitespace after them, as llama.cpp
	// sets for models whose name says phi-3
	name := strings.ToLower(modelName)
	t.rstrip = nil
	if strings.Contains(name, "phi-3") || strings.Contains(name, "phi3") {
		t.rstrip = map[int]bool{}
		for _, id := range t.special {
			t.rstrip[id] = true
		}
		for _, text := range []string{"<unk>", "<s>", "<|endoftext|>"} {
			if id, ok := t.ids[text]; ok {
				delete(t.rstrip, id)
			}
		}
		if id, ok := t.ids["</s>"]; ok {
			t.rstrip[id] = true
		}
	}
}

// partition cuts text at the special tokens, as llama.cpp's
// tokenizer_st_partition: each token in turn, longest first, splits every
// piece of text left.
func (t *Tokenizer) partition(text string) []fragment {
	frags := []fragment{{text: text, id: -1}}
	for _, id := range t.special {
		tok := t.Pieces[id]
		var next []fragment
		for _, f := range frags {
			if f.id >= 0 || !strings.Contains(f.text, tok) {
				next = append(next, f)
				continue
			}
			rest := f.text
			for {
				i := strings.Index(rest, tok)
				if i < 0 {
					if rest != "" {
						next = append(next, fragment{text: rest, id: -1})
					}
					break
				}
				if rest[:i] != "" {
					next = append(next, fragment{text: rest[:i], id: -1})
				}
				next = append(next, fragment{id: id})
				rest = rest[i+len(tok):]
				if t.rstrip[id] {
					rest = strings.TrimLeft(rest, " \t\n\v\f\r")
				}
			}
		}
		frags = next
	}
	return frags
}
