package hftokenizer

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestHFTiny: a tokenizer small enough to work by hand.
func TestHFTiny(t *testing.T) {
	tok, err := LoadHF("testdata/tiny-tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text string
		want []int
		why  string
	}{
		{"ab ab", []int{7, 7}, "▁ab▁ab splits before each ▁; ▁+a, then ▁a+b"},
		{"AB", []int{7}, "lowercased"},
		{"ＡＢ", []int{7}, "NFKC folds full-width letters"},
		{"a12", []int{5, 9, 10}, "digits stand alone, so 1+2 never merges; only the first piece gets ▁"},
		{"€", []int{2, 12, 13, 14}, "not in the vocab: its UTF-8 bytes"},
		{"xx", []int{2, 0}, "no byte tokens for x: one fused unk"},
		{"<s>ab", []int{15, 6}, "an added token; the text after it does not start the input"},
		{"a <tool> b", []int{5, 16, 4}, "lstrip and rstrip take the spaces beside the token"},
		{"\n", []int{2, 1}, "newline by byte fallback"},
		{"", nil, "nothing"},
	}
	for _, c := range cases {
		if got := tok.Encode(c.text); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v (%s)", c.text, got, c.want, c.why)
		}
	}
}

// TestSplitBehaviors: the examples in the Rust tokenizers' documentation
// of SplitDelimiterBehavior, splitting "the-final--countdown" on "-".
func TestSplitBehaviors(t *testing.T) {
	text := "the-final--countdown"
	cases := map[string][]string{
		"Removed":            {"the", "final", "countdown"},
		"Isolated":           {"the", "-", "final", "-", "-", "countdown"},
		"MergedWithPrevious": {"the-", "final-", "-", "countdown"},
		"MergedWithNext":     {"the", "-final", "-", "-countdown"},
		"Contiguous":         {"the", "-", "final", "--", "countdown"},
	}
	m := &matcher{literal: "-"}
	for behavior, want := range cases {
		var got []string
		for _, p := range splitBy(piece{text: text}, m.find(text), behavior, false) {
			got = append(got, p.text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", behavior, got, want)
		}
	}
}

// byteLevelTokenizer is GPT-2's arrangement with a vocabulary of the 256
// byte characters and a few merges: every string encodes and decodes back.
func byteLevelTokenizer(t testing.TB) ([]string, *HF) {
	t.Helper()
	var vocab []string
	for b := range 256 {
		vocab = append(vocab, string(byteChar[b]))
	}
	merges := [][2]string{{"Ġ", "t"}, {"h", "e"}, {"Ġt", "he"}, {"Ġ", "Ġ"}}
	for _, m := range merges {
		vocab = append(vocab, m[0]+m[1])
	}
	ids := map[string]int{}
	for i, v := range vocab {
		ids[v] = i
	}
	var mergeList []string
	for _, m := range merges {
		mergeList = append(mergeList, m[0]+" "+m[1])
	}
	file, _ := json.Marshal(map[string]any{
		"added_tokens":  []any{map[string]any{"id": len(vocab), "content": "<|endoftext|>"}},
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
		"model":         map[string]any{"type": "BPE", "vocab": ids, "merges": mergeList},
	})
	tok, err := ParseHF(file)
	if err != nil {
		t.Fatal(err)
	}
	return append(vocab, "<|endoftext|>"), tok
}

// decodeByteLevel undoes the byte-level spelling of token strings.
func decodeByteLevel(vocab []string, ids []int) string {
	charByte := map[rune]byte{}
	for b, r := range byteChar {
		charByte[r] = byte(b)
	}
	var out []byte
	for _, id := range ids {
		if vocab[id] == "<|endoftext|>" {
			out = append(out, vocab[id]...)
			continue
		}
		for _, r := range vocab[id] {
			out = append(out, charByte[r])
		}
	}
	return string(out)
}

func TestByteLevelRoundTrip(t *testing.T) {
	vocab, tok := byteLevelTokenizer(t)
	if got := tok.Encode(" the the"); len(got) != 2 {
		t.Errorf("\" the the\" = %v, want two tokens (Ġthe twice)", got)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		s := make([]byte, rng.IntN(40))
		for i := range s {
			s[i] = byte(rng.IntN(256)) // invalid UTF-8 too
		}
		if got := decodeByteLevel(vocab, tok.Encode(string(s))); got != string(s) {
			t.Fatalf("%q came back as %q", s, got)
		}
	}
}

func TestHFErrors(t *testing.T) {
	cases := map[string]string{
		`not json`: "not a tokenizer.json",
		`{"model":{"type":"WordPiece","vocab":{"a":0}}}`:                                  `"WordPiece" is not supported`,
		`{"model":{"type":"BPE","vocab":{}}}`:                                             "empty vocab",
		`{"model":{"type":"BPE","vocab":{"a":0},"merges":["a b"]}}`:                       `"a" + "b" is not in the vocab`,
		`{"model":{"type":"BPE","vocab":{"a":0},"merges":["ab"]}}`:                        "not two tokens",
		`{"model":{"type":"BPE","vocab":{"a":0},"unk_token":"<unk>"}}`:                    "unk_token",
		`{"normalizer":{"type":"Precompiled"},"model":{"type":"BPE","vocab":{"a":0}}}`:    `normalizer: type "Precompiled" is not supported`,
		`{"pre_tokenizer":{"type":"Split","pattern":{"Regex":"("}},"model":{"vocab":{}}}`: "pre_tokenizer",
		`{"added_tokens":[{"id":1,"content":""}],"model":{"type":"BPE","vocab":{"a":0}}}`: "empty content",
		`{}`: "model: missing",
	}
	for in, want := range cases {
		_, err := ParseHF([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", in, err, want)
		}
	}
	if _, err := LoadHF("testdata/missing.json"); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzParseHF: any file either loads or says why, and whatever loads
// encodes any text without panicking.
func FuzzParseHF(f *testing.F) {
	tiny, err := os.ReadFile("testdata/tiny-tokenizer.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tiny, "ab 12 € <s>x")
	f.Add([]byte(`{"pre_tokenizer":{"type":"Split","pattern":{"String":"-"},"behavior":"MergedWithNext","invert":true},"model":{"type":"BPE","vocab":{"a":0,"-":1}}}`), "a-a--")
	f.Add([]byte(`{"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{"a":0},"ignore_merges":true}}`), "a a")
	f.Fuzz(func(t *testing.T, file []byte, text string) {
		tok, err := ParseHF(file)
		if err != nil {
			return
		}
		tok.Encode(text)
	})
}
