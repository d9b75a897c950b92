package hftokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// bpe is a byte-pair-encoding model: a word starts as its characters and
// the adjacent pair with the lowest merge rank joins until none is left.
type bpe struct {
	vocab        map[string]int
	merges       map[[2]int]merge
	byteFallback bool
	byteIDs      [256]int // <0xXX> tokens, -1 where missing
	ignoreMerges bool
	unk          int // -1 without an unk_token
	fuseUnk      bool

	mu    sync.Mutex
	cache map[string][]int
}

type merge struct{ rank, id int }

// The word cache keeps words up to cacheWord bytes (a tokenizer without a
// pre-tokenizer makes the whole text one word, which would not repeat) and
// up to cacheLimit of them; past that it starts over.
const (
	cacheLimit = 1 << 16
	cacheWord  = 256
)

func parseBPE(raw json.RawMessage) (*bpe, error) {
	if isNull(raw) {
		return nil, fmt.Errorf("missing")
	}
	var m struct {
		Type                    string            `json:"type"`
		Vocab                   map[string]int    `json:"vocab"`
		Merges                  []json.RawMessage `json:"merges"`
		UnkToken                *string           `json:"unk_token"`
		FuseUnk                 bool              `json:"fuse_unk"`
		ByteFallback            bool              `json:"byte_fallback"`
		IgnoreMerges            bool              `json:"ignore_merges"`
		ContinuingSubwordPrefix *string           `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string           `json:"end_of_word_suffix"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m.Type != "BPE" && m.Type != "" {
		return nil, fmt.Errorf("type %q is not supported (supported: BPE)", m.Type)
	}
	if len(m.Vocab) == 0 {
		return nil, fmt.Errorf("empty vocab")
	}
	for _, affix := range []*string{m.ContinuingSubwordPrefix, m.EndOfWordSuffix} {
		if affix != nil && *affix != "" {
			return nil, fmt.Errorf("continuing_subword_prefix and end_of_word_suffix are not supported")
		}
	}
	pairs := make([][2]string, len(m.Merges))
	for rank, raw := range m.Merges {
		left, right, err := mergePair(raw)
		if err != nil {
			return nil, fmt.Errorf("merges[%d]: %w", rank, err)
		}
		pairs[rank] = [2]string{left, right}
	}
	b, err := newBPE(m.Vocab, pairs)
	if err != nil {
		return nil, err
	}
	b.byteFallback, b.ignoreMerges, b.fuseUnk = m.ByteFallback, m.IgnoreMerges, m.FuseUnk
	if m.UnkToken != nil {
		id, ok := m.Vocab[*m.UnkToken]
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocab", *m.UnkToken)
		}
		b.unk = id
	}
	return b, nil
}

// newBPE builds the model from its vocabulary and its merges in rank
// order.
func newBPE(vocab map[string]int, merges [][2]string) (*bpe, error) {
	b := &bpe{vocab: vocab, merges: make(map[[2]int]merge, len(merges)), unk: -1, cache: map[string][]int{}}
	for i := range b.byteIDs {
		b.byteIDs[i] = -1
		if id, ok := vocab[fmt.Sprintf("<0x%02X>", i)]; ok {
			b.byteIDs[i] = id
		}
	}
	for rank, m := range merges {
		left, right := m[0], m[1]
		l, okl := vocab[left]
		r, okr := vocab[right]
		id, ok := vocab[left+right]
		if !okl || !okr || !ok {
			return nil, fmt.Errorf("merges[%d]: %q + %q is not in the vocab", rank, left, right)
		}
		if _, dup := b.merges[[2]int{l, r}]; !dup {
			b.merges[[2]int{l, r}] = merge{rank, id}
		}
	}
	return b, nil
}

// mergePair reads a merge written "left right" or ["left", "right"].
func mergePair(raw json.RawMessage) (string, string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		left, right, ok := strings.Cut(s, " ")
		if !ok {
			return "", "", fmt.Errorf("%q is not two tokens", s)
		}
		return left, right, nil
	}
	var pair []string
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return "", "", fmt.Errorf("%s is not two tokens", raw)
	}
	return pair[0], pair[1], nil
}

// encodeWord appends the ids of one pre-tokenized piece.
func (b *bpe) encodeWord(word string, ids []int) []int {
	if word == "" {
		return ids
	}
	if b.ignoreMerges {
		if id, ok := b.vocab[word]; ok {
			return append(ids, id)
		}
	}
	if len(word) > cacheWord {
		return append(ids, b.merge(b.symbols(word))...)
	}
	b.mu.Lock()
	cached, ok := b.cache[word]
	b.mu.Unlock()
	if ok {
		return append(ids, cached...)
	}
	out := b.merge(b.symbols(word))
	b.mu.Lock()
	if len(b.cache) >= cacheLimit {
		clear(b.cache)
	}
	b.cache[word] = out
	b.mu.Unlock()
	return append(ids, out...)
}

// symbols gives a word's characters as ids: bytes where a character is
// not in the vocab and the model falls back to bytes, else unk.
func (b *bpe) symbols(word string) []int {
	syms := make([]int, 0, len(word))
	for i, w := 0, 0; i < len(word); i += w {
		_, w = utf8.DecodeRuneInString(word[i:])
		if id, ok := b.vocab[word[i:i+w]]; ok {
			syms = append(syms, id)
			continue
		}
		if b.byteFallback && b.hasBytes(word[i:i+w]) {
			for j := i; j < i+w; j++ {
				syms = append(syms, b.byteIDs[word[j]])
			}
			continue
		}
		if b.unk < 0 {
			continue // the Rust tokenizers drop it too
		}
		if b.fuseUnk && len(syms) > 0 && syms[len(syms)-1] == b.unk {
			continue
		}
		syms = append(syms, b.unk)
	}
	return syms
}

func (b *bpe) hasBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if b.byteIDs[s[i]] < 0 {
			return false
		}
	}
	return true
}

// merge joins pairs lowest rank first, leftmost first among equals, with a
// heap so that a long word (a whole prompt, for models without a
// pre-tokenizer) costs n log n.
func (b *bpe) merge(ids []int) []int {
	n := len(ids)
	if n < 2 {
		return ids
	}
	prev, next := make([]int, n), make([]int, n)
	for i := range ids {
		prev[i], next[i] = i-1, i+1
	}
	next[n-1] = -1
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	var h candidates
	for i := 0; i+1 < n; i++ {
		if m, ok := b.merges[[2]int{ids[i], ids[i+1]}]; ok {
			h.push(candidate{m.rank, i, m.id})
		}
	}
	for len(h) > 0 {
		c := h.pop()
		r := next[c.pos]
		if !alive[c.pos] || r < 0 {
			continue
		}
		if m, ok := b.merges[[2]int{ids[c.pos], ids[r]}]; !ok || m.id != c.id || m.rank != c.rank {
			continue // the pair changed since this candidate was queued
		}
		ids[c.pos] = c.id
		alive[r] = false
		next[c.pos] = next[r]
		if next[r] >= 0 {
			prev[next[r]] = c.pos
		}
		if p := prev[c.pos]; p >= 0 {
			if m, ok := b.merges[[2]int{ids[p], ids[c.pos]}]; ok {
				h.push(candidate{m.rank, p, m.id})
			}
		}
		if nx := next[c.pos]; nx >= 0 {
			if m, ok := b.merges[[2]int{ids[c.pos], ids[nx]}]; ok {
				h.push(candidate{m.rank, c.pos, m.id})
			}
		}
	}
	out := make([]int, 0, n)
	for i := 0; i >= 0; i = next[i] {
		out = append(out, ids[i])
	}
	return out
}

// candidate is a pair that could merge: its rank, its left symbol and
// the token it would make.
type candidate struct{ rank, pos, id int }

// candidates is a binary min-heap by rank, then position.
type candidates []candidate

func (c candidate) less(o candidate) bool {
	return c.rank < o.rank || c.rank == o.rank && c.pos < o.pos
}

func (h *candidates) push(c candidate) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *candidates) pop() candidate {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, min := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].less(s[min]) {
			min = l
		}
		if r < len(s) && s[r].less(s[min]) {
			min = r
		}
		if min == i {
			break
		}
		s[i], s[min] = s[min], s[i]
		i = min
	}
	*h = s
	return top
}
