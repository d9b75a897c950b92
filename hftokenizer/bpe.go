package hftokenizer

import (
	"errors"
	"fmt"
	"strings"
)

// ByteLevelBPE describes a byte-level BPE tokenizer by its parts rather
// than by a tokenizer.json: what a GGUF file's "gpt2" tokenizer holds.
// Special tokens are the caller's to cut out of the text first.
type ByteLevelBPE struct {
	Vocab  []string // by id, in byte-level characters
	Merges []string // "left right", lowest rank first
	// Split are the pre-tokenizer's patterns, applied one after another,
	// each match a piece of its own ("Isolated")
	Split []string
	// IgnoreMerges takes a word that is a whole token as that token
	IgnoreMerges bool
}

// NewByteLevelBPE builds the tokenizer b describes.
func NewByteLevelBPE(b ByteLevelBPE) (*HF, error) {
	if len(b.Vocab) == 0 {
		return nil, errors.New("empty vocabulary")
	}
	vocab := make(map[string]int, len(b.Vocab))
	for id, tok := range b.Vocab {
		if _, dup := vocab[tok]; !dup {
			vocab[tok] = id
		}
	}
	pairs := make([][2]string, len(b.Merges))
	for rank, m := range b.Merges {
		left, right, ok := strings.Cut(m, " ")
		if !ok {
			return nil, fmt.Errorf("merges[%d]: %q is not two tokens", rank, m)
		}
		pairs[rank] = [2]string{left, right}
	}
	model, err := newBPE(vocab, pairs)
	if err != nil {
		return nil, err
	}
	model.ignoreMerges = b.IgnoreMerges
	var splits []*matcher
	for _, re := range b.Split {
		m, err := pattern{Regex: &re}.compile()
		if err != nil {
			return nil, err
		}
		splits = append(splits, m)
	}
	t := &HF{model: model, pretok: eachPiece(func(pc piece) []piece {
		out := []piece{pc}
		for _, m := range splits {
			var next []piece
			for _, p := range out {
				next = append(next, splitBy(p, m.find(p.text), "Isolated", false)...)
			}
			out = next
		}
		for i := range out {
			out[i].text = byteLevel(out[i].text)
		}
		return out
	})}
	return t, nil
}

// ByteLevelText turns a byte-level token's characters back into the bytes
// they spell; a character outside the byte alphabet stays as it is (added
// tokens are plain text).
func ByteLevelText(tok string) string {
	var b strings.Builder
	b.Grow(len(tok))
	for _, r := range tok {
		if c, ok := charByte[r]; ok {
			b.WriteByte(c)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var charByte = func() map[rune]byte {
	m := make(map[rune]byte, 256)
	for b, r := range byteChar {
		m[r] = byte(b)
	}
	return m
}()
