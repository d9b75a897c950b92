// Package tokenizer implements the tokenizers GGUF files describe in their
// tokenizer.ggml.* metadata: the llama model (SentencePiece BPE with byte
// fallback) and the gpt2 model (byte-level BPE with a pre-tokenizer),
// encoding as llama.cpp does, so that both engines see the same token ids
// for the same text.
package tokenizer

import (
	"container/heap"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/hftokenizer"
)

// Token types of tokenizer.ggml.token_type.
const (
	TypeNormal      = 1
	TypeUnknown     = 2
	TypeControl     = 3
	TypeUserDefined = 4
	TypeUnused      = 5
	TypeByte        = 6
)

// Tokenizer is a llama SentencePiece tokenizer.
type Tokenizer struct {
	Pieces []string
	Scores []float32
	Types  []int32

	BOS, EOS, UNK int
	// EOG are the tokens that end a generation: EOS, and the end-of-turn
	// tokens of chat models
	EOG    []int
	AddBOS bool
	AddEOS bool
	// AddSpacePrefix puts a space before the text, as SentencePiece does.
	AddSpacePrefix bool

	ids      map[string]int
	byteID   [256]int
	maxPiece int // bytes of the longest piece
	// bpe encodes for the gpt2 model (bpe.go); nil for SentencePiece
	bpe *hftokenizer.HF
	// special are the tokens a text may spell (special.go), longest
	// first; rstrip those that take the whitespace after them
	special []int
	rstrip  map[int]bool
}

// spaceMark is SentencePiece's visible space.
const spaceMark = "\u2581"

// New builds a tokenizer from its parts and checks them.
func New(pieces []string, scores []float32, types []int32) (*Tokenizer, error) {
	n := len(pieces)
	if n == 0 {
		return nil, fmt.Errorf("tokenizer: empty vocabulary")
	}
	if scores == nil {
		scores = make([]float32, n)
	}
	if types == nil {
		types = make([]int32, n)
		for i := range types {
			types[i] = TypeNormal
		}
	}
	if len(scores) != n || len(types) != n {
		return nil, fmt.Errorf("tokenizer: %d pieces, %d scores, %d types", n, len(scores), len(types))
	}
	t := &Tokenizer{Pieces: pieces, Scores: scores, Types: types, BOS: 1, EOS: 2, UNK: 0, EOG: []int{2}, AddBOS: true, AddSpacePrefix: true,
		ids: make(map[string]int, n)}
	defer t.indexSpecial("")
	for i := range t.byteID {
		t.byteID[i] = -1
	}
	for i, p := range pieces {
		t.maxPiece = max(t.maxPiece, len(p))
		if _, dup := t.ids[p]; !dup {
			t.ids[p] = i
		}
		if types[i] == TypeByte {
			if b, ok := parseByte(p); ok {
				t.byteID[b] = i
			}
		}
	}
	return t, nil
}

func parseByte(p string) (byte, bool) {
	if len(p) != 6 || !strings.HasPrefix(p, "<0x") || p[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(p[3:5], 16, 8)
	return byte(v), err == nil
}

// FromGGUF reads the tokenizer a GGUF file describes: the llama
// (SentencePiece) model, or the gpt2 (byte-level BPE) one of Llama 3,
// Qwen and SmolLM files.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	model, err := f.String("tokenizer.ggml.model")
	if err != nil {
		return nil, err
	}
	if model != "llama" && model != "gpt2" {
		return nil, fmt.Errorf("tokenizer model %q: llama (SentencePiece) and gpt2 (byte-level BPE) are supported", model)
	}
	ta, err := f.Array("tokenizer.ggml.tokens")
	if err != nil {
		return nil, err
	}
	pieces, err := ta.Strings()
	if err != nil {
		return nil, fmt.Errorf("tokenizer.ggml.tokens: %w", err)
	}
	var scores []float32
	if sa, err := f.Array("tokenizer.ggml.scores"); err == nil {
		if scores, err = sa.Float32s(); err != nil {
			return nil, fmt.Errorf("tokenizer.ggml.scores: %w", err)
		}
	}
	var types []int32
	if ty, err := f.Array("tokenizer.ggml.token_type"); err == nil {
		if types, err = ty.Int32s(); err != nil {
			return nil, fmt.Errorf("tokenizer.ggml.token_type: %w", err)
		}
	}
	t, err := New(pieces, scores, types)
	if err != nil {
		return nil, err
	}
	if model == "gpt2" {
		if err := t.readBPE(f); err != nil {
			return nil, err
		}
	}
	for key, dst := range map[string]*int{"tokenizer.ggml.bos_token_id": &t.BOS, "tokenizer.ggml.eos_token_id": &t.EOS, "tokenizer.ggml.unknown_token_id": &t.UNK} {
		if v, err := f.Uint(key); err == nil {
			if v >= uint64(len(pieces)) {
				return nil, fmt.Errorf("%s %d is outside the vocabulary of %d", key, v, len(pieces))
			}
			*dst = int(v)
		}
	}
	for key, dst := range map[string]*bool{"tokenizer.ggml.add_bos_token": &t.AddBOS, "tokenizer.ggml.add_eos_token": &t.AddEOS, "tokenizer.ggml.add_space_prefix": &t.AddSpacePrefix} {
		if v, ok := f.Get(key); ok {
			if b, ok := v.(bool); ok {
				*dst = b
			}
		}
	}
	t.EOG = t.endOfGeneration(f)
	name, _ := f.String("general.name")
	t.indexSpecial(name)
	return t, nil
}

// endOfGenerationText are the end-of-turn tokens of the chat formats
// (Llama 3, ChatML, Phi-3, Gemma, GPT-2's end of text), which end a
// generation as the end-of-sequence token does when a file names only
// one of them, as llama.cpp reads them.
var endOfGenerationText = []string{"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
	"<|end_of_text|>", "<EOT>", "<end_of_utterance>", "</s>"}

// endOfGeneration is the end-of-sequence token, the end-of-turn tokens the
// file names, and the control tokens spelled as one.
func (t *Tokenizer) endOfGeneration(f *gguf.File) []int {
	eog := []int{t.EOS}
	for _, key := range []string{"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"} {
		if v, err := f.Uint(key); err == nil && v < uint64(len(t.Pieces)) && !slices.Contains(eog, int(v)) {
			eog = append(eog, int(v))
		}
	}
	for _, text := range endOfGenerationText {
		if id, ok := t.ids[text]; ok && t.Types[id] == TypeControl && !slices.Contains(eog, id) {
			eog = append(eog, id)
		}
	}
	return eog
}

// Len is the vocabulary size.
func (t *Tokenizer) Len() int { return len(t.Pieces) }

// ID returns a piece's id.
func (t *Tokenizer) ID(piece string) (int, bool) { id, ok := t.ids[piece]; return id, ok }

// Encode turns text into token ids, with BOS (and EOS) when the model
// asks for them and addSpecial is set.
func (t *Tokenizer) Encode(text string, addSpecial bool) []int {
	var out []int
	if addSpecial && t.AddBOS {
		out = append(out, t.BOS)
	}
	afterSpecial := true // SentencePiece puts a space before the text, and after each special token
	for _, f := range t.partition(text) {
		switch {
		case f.id >= 0:
			out = append(out, f.id)
			afterSpecial = true
		case t.bpe != nil:
			out = append(out, t.bpe.Encode(f.text)...)
		default:
			s := f.text
			if t.AddSpacePrefix && afterSpecial {
				s = " " + s
			}
			out = t.encodeSPM(strings.ReplaceAll(s, " ", spaceMark), out)
			afterSpecial = false
		}
	}
	if addSpecial && t.AddEOS {
		out = append(out, t.EOS)
	}
	return out
}

// MaxCountedPiece bounds the bytes MinTokens counts a token as covering.
// A vocabulary may hold a piece of any length: one of 1 MB made a 4 MB
// prompt pass the server's check as 4 tokens, and encoding it took
// 1.05 GB. Real vocabularies' pieces are words and runs of spaces or
// symbols, far shorter.
const MaxCountedPiece = 256

// MinTokens is a lower bound on the tokens Encode makes of a text of n
// bytes, known before encoding, for a text none of whose tokens covers
// more than MaxCountedPiece bytes: no token covers more of the text than
// its piece's bytes (the visible space takes three bytes for the text's
// one). It lets a server refuse a prompt that cannot fit its context
// without the work, and memory, of encoding megabytes.
func (t *Tokenizer) MinTokens(n int) int {
	if t.maxPiece == 0 || n == 0 {
		return 0 // Encode adds no space prefix to an empty text
	}
	if t.AddSpacePrefix {
		n++
	}
	piece := min(t.maxPiece, MaxCountedPiece)
	return (n + piece - 1) / piece
}

// symbol is a piece of the text being merged: a linked list over the text.
type symbol struct {
	prev, next int
	start, n   int // byte range in the text; n == 0 once merged away
}

type bigram struct {
	left, right int
	score       float32
	size        int
}

type bigramQueue []bigram

func (q bigramQueue) Len() int { return len(q) }
func (q bigramQueue) Less(i, j int) bool {
	if q[i].score != q[j].score {
		return q[i].score > q[j].score
	}
	return q[i].left < q[j].left
}
func (q bigramQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *bigramQueue) Push(x any)   { *q = append(*q, x.(bigram)) }
func (q *bigramQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// encodeSPM merges the text's characters pairwise, always taking the pair
// whose merged piece has the highest score (the leftmost on a tie), then
// falls back to bytes for what no piece covers, as llama.cpp's SPM
// tokenizer does.
func (t *Tokenizer) encodeSPM(text string, out []int) []int {
	var syms []symbol
	for i := 0; i < len(text); {
		_, n := utf8.DecodeRuneInString(text[i:])
		syms = append(syms, symbol{prev: len(syms) - 1, next: len(syms) + 1, start: i, n: n})
		i += n
	}
	syms[len(syms)-1].next = -1
	q := &bigramQueue{}
	try := func(left, right int) {
		if left < 0 || right < 0 {
			return
		}
		piece := text[syms[left].start : syms[right].start+syms[right].n]
		id, ok := t.ids[piece]
		if !ok {
			return
		}
		heap.Push(q, bigram{left: left, right: right, score: t.Scores[id], size: len(piece)})
	}
	for i := 1; i < len(syms); i++ {
		try(i-1, i)
	}
	for q.Len() > 0 {
		b := heap.Pop(q).(bigram)
		l, r := &syms[b.left], &syms[b.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != b.size {
			continue // stale: one side was merged since
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = b.left
		}
		try(l.prev, b.left)
		try(b.left, l.next)
	}
	// Every merged symbol is a piece; a character no piece covers falls back
	// to its bytes.
	for i := 0; i >= 0; i = syms[i].next {
		piece := text[syms[i].start : syms[i].start+syms[i].n]
		if id, ok := t.ids[piece]; ok {
			out = append(out, id)
			continue
		}
		for j := 0; j < len(piece); j++ {
			if id := t.byteID[piece[j]]; id >= 0 {
				out = append(out, id)
			} else {
				out = append(out, t.UNK)
			}
		}
	}
	return out
}

// Piece returns the text of one token: byte tokens as their byte, the
// visible space as a space, control tokens as nothing.
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.Pieces) {
		return ""
	}
	if t.bpe != nil {
		return t.bpePiece(id)
	}
	switch t.Types[id] {
	case TypeByte:
		if b, ok := parseByte(t.Pieces[id]); ok {
			return string([]byte{b})
		}
	case TypeControl, TypeUnused:
		return ""
	case TypeUnknown:
		return "\u2047"
	}
	return strings.ReplaceAll(t.Pieces[id], spaceMark, " ")
}

// Decode turns ids into text, dropping the space SentencePiece put in front.
func (t *Tokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(t.Piece(id))
	}
	s := b.String()
	if t.AddSpacePrefix {
		s = strings.TrimPrefix(s, " ")
	}
	return s
}
