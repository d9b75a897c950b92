package tokenizer_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/synth"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

func fromShape(t testing.TB, shape string) *tokenizer.Tokenizer {
	t.Helper()
	p, _ := synth.Lookup(shape)
	return fromShapeOf(t, p)
}

// fromShapeOf is the tokenizer of a file synth writes for p.
func fromShapeOf(t testing.TB, p synth.Shape) *tokenizer.Tokenizer {
	t.Helper()
	b, err := synth.Bytes(p, gguf.Q4_0, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestEncodeHandMadeVocabulary(t *testing.T) {
	// "▁ab" outscores "bc", so "abc" merges as ▁a, ▁ab, then c on its own;
	// "é" has no piece and falls back to its two UTF-8 bytes.
	pieces := []string{"<unk>", "<s>", "</s>", "<0xC3>", "<0xA9>", "▁", "a", "b", "c", "▁a", "▁ab", "bc"}
	scores := []float32{0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -2, -3}
	types := []int32{2, 3, 3, 6, 6, 1, 1, 1, 1, 1, 1, 1}
	tk, err := tokenizer.New(pieces, scores, types)
	if err != nil {
		t.Fatal(err)
	}
	got := tk.Encode("abc é", true)
	want := []int{1, 10, 8, 5, 3, 4}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Encode = %v, want %v", got, want)
	}
	if s := tk.Decode(got); s != "abc é" {
		t.Fatalf("Decode = %q", s)
	}
}

// TestSpecialTokensInText: control tokens spelled in a text are parsed,
// with SentencePiece's space before the text after each; a model named
// Phi-3 has its special tokens take the whitespace after them (as llama.cpp
// sets them), others keep it.
func TestSpecialTokensInText(t *testing.T) {
	pieces := []string{"<unk>", "<s>", "</s>", "<|user|>", "▁", "h", "i", "▁h", "▁hi"}
	types := []int32{2, 3, 3, 3, 1, 1, 1, 1, 1}
	tk, err := tokenizer.New(pieces, make([]float32, len(pieces)), types)
	if err != nil {
		t.Fatal(err)
	}
	if ids := tk.Encode("<|user|>hi</s>", false); fmt.Sprint(ids) != "[3 8 2]" {
		t.Errorf("<|user|>hi</s> encodes to %v, want [3 8 2] (<|user|>, ▁hi, </s>)", ids)
	}
	for _, c := range []struct{ name string }{{"tiny-phi3"}, {"tiny-other"}} {
		shape := synth.Shapes["tiny"]
		shape.Name = c.name
		tk := fromShapeOf(t, shape)
		stripped, kept := tk.Encode("</s>the", false), tk.Encode("</s>  the", false)
		if strings.Contains(c.name, "phi3") != (fmt.Sprint(stripped) == fmt.Sprint(kept)) {
			t.Errorf("%s: \"</s>the\" %v, \"</s>  the\" %v", c.name, stripped, kept)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	tk := fromShape(t, "15m")
	for _, s := range []string{"Explain AI", "the cat sat on the mat.", "Once upon a time, there was a little girl", "naïve café — 東京 🙂", "  two  spaces", ""} {
		ids := tk.Encode(s, false)
		if got := tk.Decode(ids); got != s {
			t.Errorf("%q -> %v -> %q", s, ids, got)
		}
	}
	ids := tk.Encode("the house", true)
	if ids[0] != tk.BOS || len(ids) != 3 {
		t.Errorf("common words should be single pieces after BOS: %v", ids)
	}
}

func FuzzEncodeDecode(f *testing.F) {
	tk := fromShape(f, "tiny")
	f.Add("hello world")
	f.Add("\xff\x00 é")
	f.Add("the the the the the the the")
	f.Add(strings.Repeat("people ", 40))
	f.Fuzz(func(t *testing.T, s string) {
		ids := tk.Encode(s, true)
		for _, id := range ids {
			if id < 0 || id >= tk.Len() {
				t.Fatalf("id %d out of range", id)
			}
		}
		// Valid UTF-8 without the visible-space mark round-trips exactly.
		_ = tk.Decode(ids)
		if least, got := tk.MinTokens(len(s)), len(tk.Encode(s, false)); least > got {
			t.Fatalf("MinTokens(%d) = %d, more than the %d tokens of %q", len(s), least, got, s)
		}
	})
}

// FuzzBPEEncodeDecode: the gpt2 (byte-level BPE) tokenizer encodes any
// text to ids in range, decodes valid UTF-8 back exactly (byte-level BPE
// loses nothing; control tokens in the text are parsed and say nothing),
// and MinTokens stays a lower bound.
func FuzzBPEEncodeDecode(f *testing.F) {
	shape := synth.Shape{Name: "bpe", Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Context: 8,
		Tokenizer: synth.ByteLevelVocabulary([]string{"the", " the", "cat", " cat", " sat", "123"})}
	tk := fromShapeOf(f, shape)
	f.Add("the cat sat")
	f.Add("\xff\x00 é 東京 🙂")
	f.Add("<|im_start|>user\nthe cat<|im_end|>")
	f.Add("  \t\r\n 1234567 it's")
	f.Fuzz(func(t *testing.T, s string) {
		ids := tk.Encode(s, true)
		for _, id := range ids {
			if id < 0 || id >= tk.Len() {
				t.Fatalf("id %d out of range", id)
			}
		}
		if utf8.ValidString(s) && !strings.Contains(s, "<|") {
			if got := tk.Decode(ids); got != s {
				t.Fatalf("%q -> %v -> %q", s, ids, got)
			}
		}
		if least, got := tk.MinTokens(len(s)), len(tk.Encode(s, false)); least > got {
			t.Fatalf("MinTokens(%d) = %d, more than the %d tokens of %q", len(s), least, got, s)
		}
	})
}

// TestEndOfGeneration: a generation ends at the end-of-sequence token and
// at the end-of-turn control tokens the vocabulary has (here ChatML's),
// not at other control tokens.
func TestEndOfGeneration(t *testing.T) {
	shape := synth.Shape{Name: "eog", Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Context: 8,
		Tokenizer: synth.ByteLevelVocabulary([]string{"the"})}
	tk := fromShapeOf(t, shape)
	end, _ := tk.ID("<|im_end|>")
	start, _ := tk.ID("<|im_start|>")
	if !slices.Contains(tk.EOG, tk.EOS) || !slices.Contains(tk.EOG, end) || slices.Contains(tk.EOG, start) {
		t.Errorf("EOG %v: want EOS %d and <|im_end|> %d, not <|im_start|> %d", tk.EOG, tk.EOS, end, start)
	}
}

// TestMinTokensNotInflated: one huge piece in a vocabulary does not make
// a long text look short (a 1 MB piece let a 4 MB prompt pass a server's
// context check as 4 tokens, and encoding it took 1.05 GB).
func TestMinTokensNotInflated(t *testing.T) {
	tk, err := tokenizer.New([]string{"<unk>", "<s>", "</s>", "a", strings.Repeat("x", 1<<20)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tk.MinTokens(4<<20), (4<<20+1)/tokenizer.MaxCountedPiece; got < want {
		t.Errorf("MinTokens(4 MB) = %d, want at least %d", got, want)
	}
}
