package synth

import (
	"encoding/json"
	"fmt"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// Tokenizer is a byte-level BPE (gpt2) tokenizer for a synthesized model,
// in place of the built-in SentencePiece vocabulary: so that a dummy-weight
// file tokenizes as Llama 3, Qwen or GPT-2 do.
type Tokenizer struct {
	Pre      string   // tokenizer.ggml.pre: llama-bpe, qwen2, gpt-2, ...
	Tokens   []string // by id
	Types    []int32  // tokenizer.Type* by id
	Merges   []string // "left right", by rank
	BOS, EOS int
	AddBOS   bool
	// ChatTemplate is tokenizer.chat_template's Jinja source ("" for none)
	ChatTemplate string
}

// TokenizerFromHF converts a tokenizer.json (its BPE vocabulary, merges
// and added tokens) as llama.cpp's converter does: special added tokens
// are control tokens, other added tokens user-defined. bos and eos name
// the tokens that begin and end a sequence ("" for none: the id is then
// that of eos, or 0).
func TokenizerFromHF(data []byte, pre, bos, eos string) (*Tokenizer, error) {
	var f struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Model struct {
			Type   string            `json:"type"`
			Vocab  map[string]int    `json:"vocab"`
			Merges []json.RawMessage `json:"merges"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	if f.Model.Type != "BPE" {
		return nil, fmt.Errorf("tokenizer.json model %q: want BPE", f.Model.Type)
	}
	n := len(f.Model.Vocab)
	for _, a := range f.AddedTokens {
		n = max(n, a.ID+1)
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("tokenizer.json: %d tokens", n)
	}
	t := &Tokenizer{Pre: pre, Tokens: make([]string, n), Types: make([]int32, n)}
	for i := range t.Tokens {
		t.Tokens[i], t.Types[i] = fmt.Sprintf("[PAD%d]", i), tokenizer.TypeUnused
	}
	for tok, id := range f.Model.Vocab {
		if id < 0 || id >= n {
			return nil, fmt.Errorf("tokenizer.json: id %d of %q", id, tok)
		}
		t.Tokens[id], t.Types[id] = tok, tokenizer.TypeNormal
	}
	for _, a := range f.AddedTokens {
		if a.ID < 0 {
			return nil, fmt.Errorf("tokenizer.json: added token id %d", a.ID)
		}
		t.Tokens[a.ID], t.Types[a.ID] = a.Content, tokenizer.TypeUserDefined
		if a.Special {
			t.Types[a.ID] = tokenizer.TypeControl
		}
	}
	for i, raw := range f.Model.Merges {
		var s string
		var pair []string
		switch {
		case json.Unmarshal(raw, &s) == nil:
		case json.Unmarshal(raw, &pair) == nil && len(pair) == 2:
			s = pair[0] + " " + pair[1]
		default:
			return nil, fmt.Errorf("tokenizer.json: merges[%d] is %s", i, raw)
		}
		t.Merges = append(t.Merges, s)
	}
	find := func(text string) (int, error) {
		for id, tok := range t.Tokens {
			if tok == text {
				return id, nil
			}
		}
		return 0, fmt.Errorf("tokenizer.json has no token %q", text)
	}
	var err error
	if eos != "" {
		if t.EOS, err = find(eos); err != nil {
			return nil, err
		}
	}
	t.BOS = t.EOS
	if bos != "" {
		if t.BOS, err = find(bos); err != nil {
			return nil, err
		}
		t.AddBOS = true
	}
	return t, nil
}

// metadata is the tokenizer's GGUF keys.
func (t *Tokenizer) metadata() []gguf.KV {
	md := []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: "gpt2"},
		{Key: "tokenizer.ggml.pre", Value: t.Pre},
		{Key: "tokenizer.ggml.tokens", Value: gguf.Strings(t.Tokens)},
		{Key: "tokenizer.ggml.token_type", Value: gguf.Int32s(t.Types)},
		{Key: "tokenizer.ggml.merges", Value: gguf.Strings(t.Merges)},
		{Key: "tokenizer.ggml.bos_token_id", Value: uint32(t.BOS)},
		{Key: "tokenizer.ggml.eos_token_id", Value: uint32(t.EOS)},
		{Key: "tokenizer.ggml.add_bos_token", Value: t.AddBOS},
	}
	if t.ChatTemplate != "" {
		md = append(md, gguf.KV{Key: "tokenizer.chat_template", Value: t.ChatTemplate})
	}
	return md
}

// ByteLevelVocabulary is a small byte-level BPE (gpt2) tokenizer with the
// GPT-2 pre-tokenizer: the 256 byte characters, merges that build each of
// words (a leading space spelled as GPT-2 does, Ġ), then end-of-text and
// ChatML's turn markers as control tokens, and a ChatML template. It lets
// tests and fuzzers run the gpt2 tokenizer without a tokenizer.json.
func ByteLevelVocabulary(words []string) *Tokenizer {
	t := &Tokenizer{Pre: "gpt-2",
		ChatTemplate: "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"}
	var char [256]string // GPT-2's printable character for each byte
	next := rune(256)
	for b := 0; b < 256; b++ {
		r := rune(b)
		if !(b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE) {
			r, next = next, next+1
		}
		char[b] = string(r)
		t.Tokens, t.Types = append(t.Tokens, char[b]), append(t.Types, tokenizer.TypeNormal)
	}
	have := map[string]bool{}
	for _, w := range words {
		cur := char[w[0]]
		for i := 1; i < len(w); i++ {
			merged := cur + char[w[i]]
			if !have[merged] {
				have[merged] = true
				t.Merges = append(t.Merges, cur+" "+char[w[i]])
				t.Tokens, t.Types = append(t.Tokens, merged), append(t.Types, tokenizer.TypeNormal)
			}
			cur = merged
		}
	}
	for _, special := range []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"} {
		t.Tokens, t.Types = append(t.Tokens, special), append(t.Types, tokenizer.TypeControl)
	}
	t.EOS = len(t.Tokens) - 3
	t.BOS = t.EOS
	return t
}
