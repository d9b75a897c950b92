package tokenizer

import (
	"fmt"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/hftokenizer"
)

// The pre-tokenizers of the gpt2 model, by tokenizer.ggml.pre: the
// patterns llama.cpp splits text with before BPE (llama-vocab.cpp), each
// applied to the pieces of the one before.
var (
	splitLlama3 = []string{`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`}
	splitQwen2  = []string{`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`}
	splitGPT2   = []string{`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`}
	splitSmolLM = []string{`\p{N}`, splitGPT2[0]}
	// what llama.cpp uses for a file that names no pre-tokenizer
	splitDefault = []string{`[\p{P}\$\+<=>\^~\|]+`, splitGPT2[0], `\p{N}+`, `[0-9][0-9][0-9]`}
)

// preTokenizers maps tokenizer.ggml.pre to its patterns, whether a word
// that is a whole token skips the merges, and whether BOS is added when
// the file does not say.
var preTokenizers = map[string]struct {
	split        []string
	ignoreMerges bool
	addBOS       bool
}{
	"llama3": {splitLlama3, true, true}, "llama-v3": {splitLlama3, true, true}, "llama-bpe": {splitLlama3, true, true},
	"falcon3": {splitLlama3, true, true}, "pixtral": {splitLlama3, true, true},
	"qwen2": {splitQwen2, false, false}, "deepseek-r1-qwen": {splitQwen2, false, false},
	"smollm": {splitSmolLM, false, false},
	"gpt-2":  {splitGPT2, false, false}, "phi-2": {splitGPT2, false, false}, "olmo": {splitGPT2, false, false}, "mpt": {splitGPT2, false, false},
	"default": {splitDefault, false, false}, "": {splitDefault, false, false},
}

// readBPE sets t up as the gpt2 model f describes.
func (t *Tokenizer) readBPE(f *gguf.File) error {
	pre := ""
	if v, err := f.String("tokenizer.ggml.pre"); err == nil {
		pre = v
	}
	p, ok := preTokenizers[pre]
	if !ok {
		return fmt.Errorf("tokenizer.ggml.pre %q: this pre-tokenizer is not supported (llama-bpe, qwen2, smollm, gpt-2 and default are)", pre)
	}
	ma, err := f.Array("tokenizer.ggml.merges")
	if err != nil {
		return err
	}
	merges, err := ma.Strings()
	if err != nil {
		return fmt.Errorf("tokenizer.ggml.merges: %w", err)
	}
	// special tokens are cut out of the text before BPE (special.go)
	t.bpe, err = hftokenizer.NewByteLevelBPE(hftokenizer.ByteLevelBPE{Vocab: t.Pieces, Merges: merges, Split: p.split,
		IgnoreMerges: p.ignoreMerges})
	if err != nil {
		return fmt.Errorf("tokenizer: %w", err)
	}
	t.AddBOS, t.AddSpacePrefix = p.addBOS, false
	return nil
}

// bpePiece is a byte-level token's bytes; control tokens say nothing and
// user-defined ones are their text.
func (t *Tokenizer) bpePiece(id int) string {
	switch t.Types[id] {
	case TypeControl, TypeUnused:
		return ""
	case TypeUserDefined:
		return t.Pieces[id]
	}
	return hftokenizer.ByteLevelText(t.Pieces[id])
}
