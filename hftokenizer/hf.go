// Package hftokenizer reads a model's Hugging Face tokenizer.json and
// encodes text as the tokenizers library does (byte-level BPE and the
// normalizers and pre-tokenizers around it). Both sides use it: the
// client's token counter (tokencount) and the engine's tokenizer, so the
// engine depends on nothing of the measuring side.
package hftokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tpsbench/tpsbench/internal/fileread"
)

// HF is a Hugging Face tokenizer read from a model's tokenizer.json: its
// added tokens, normalizer, pre-tokenizer and BPE model — what GPT-2,
// Llama 2 and 3, Mistral, Qwen and most chat models ship. Encode leaves out
// the post-processor's special tokens (BOS and the like), as the chat
// template that adds them is the server's business. It is safe for
// concurrent use.
type HF struct {
	added     []addedToken // longest first, so the longest match wins
	addedAt   [256][]int32 // indices into added by first byte
	normalize normalizer
	pretok    preTokenizer
	model     *bpe
}

type addedToken struct {
	content        string
	id             int
	lstrip, rstrip bool
}

// hfFile is the part of tokenizer.json a count needs.
type hfFile struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		LStrip  bool   `json:"lstrip"`
		RStrip  bool   `json:"rstrip"`
	} `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        json.RawMessage `json:"model"`
}

// maxTokenizerFile bounds a tokenizer.json read into memory; the largest
// in use are tens of megabytes.
const maxTokenizerFile = 256 << 20

// LoadHF reads a tokenizer.json, or the one in a directory.
func LoadHF(path string) (*HF, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	data, err := fileread.AtMost(path, maxTokenizerFile)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer: %w", err)
	}
	t, err := ParseHF(data)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: %w", path, err)
	}
	return t, nil
}

// ParseHF reads the contents of a tokenizer.json.
func ParseHF(data []byte) (*HF, error) {
	var f hfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	t := &HF{}
	var err error
	if t.normalize, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	if t.pretok, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	if t.model, err = parseBPE(f.Model); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	for i, a := range f.AddedTokens {
		if a.Content == "" {
			return nil, fmt.Errorf("added_tokens[%d]: empty content", i)
		}
		t.added = append(t.added, addedToken{content: a.Content, id: a.ID, lstrip: a.LStrip, rstrip: a.RStrip})
	}
	t.indexAdded()
	return t, nil
}

// indexAdded orders the added tokens longest first and indexes them by
// first byte.
func (t *HF) indexAdded() {
	sort.SliceStable(t.added, func(i, j int) bool { return len(t.added[i].content) > len(t.added[j].content) })
	for i, a := range t.added {
		t.addedAt[a.content[0]] = append(t.addedAt[a.content[0]], int32(i))
	}
}

// Count is the number of tokens Encode gives.
func (t *HF) Count(text string) int { return len(t.Encode(text)) }

// Encode gives the token ids of a text.
func (t *HF) Encode(text string) []int {
	var ids []int
	first := true
	for _, seg := range t.splitAdded(text) {
		if seg.added >= 0 {
			ids = append(ids, seg.added)
			first = false
			continue
		}
		s := seg.text
		if t.normalize != nil {
			s = t.normalize(s)
		}
		pieces := []piece{{s, first}}
		first = false
		if t.pretok != nil {
			pieces = t.pretok(pieces)
		}
		for _, p := range pieces {
			ids = t.model.encodeWord(p.text, ids)
		}
	}
	return ids
}

// segment is a run of plain text, or an added token (added >= 0).
type segment struct {
	text  string
	added int
}

// splitAdded cuts the text at the added tokens, which bypass the
// normalizer and the model; lstrip and rstrip tokens take the whitespace
// beside them.
func (t *HF) splitAdded(text string) []segment {
	if len(t.added) == 0 {
		return []segment{{text, -1}}
	}
	var segs []segment
	start := 0
	for i := 0; i < len(text); {
		a := t.matchAdded(text[i:])
		if a == nil {
			i++
			continue
		}
		before, end := text[start:i], i+len(a.content)
		if a.lstrip {
			before = strings.TrimRight(before, " \t\n\r\v\f")
		}
		if before != "" {
			segs = append(segs, segment{before, -1})
		}
		segs = append(segs, segment{added: a.id})
		if a.rstrip {
			for end < len(text) && strings.IndexByte(" \t\n\r\v\f", text[end]) >= 0 {
				end++
			}
		}
		start, i = end, end
	}
	if start < len(text) {
		segs = append(segs, segment{text[start:], -1})
	}
	return segs
}

func (t *HF) matchAdded(s string) *addedToken {
	for _, i := range t.addedAt[s[0]] {
		if strings.HasPrefix(s, t.added[i].content) {
			return &t.added[i]
		}
	}
	return nil
}
