// Package synth writes llama GGUF models with deterministic dummy weights
// (as vLLM's --load-format dummy does): real shapes and formats, so speed is
// that of a real model of the same size, with a vocabulary of English and
// made-up words so that output reads as words.
package synth

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/half"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// Shape is a model shape: the sizes synth writes dummy weights for.
type Shape struct {
	Name                                string
	Dim, Hidden, Layers, Heads, KVHeads int
	Vocab, Context                      int
	// Tokenizer, when set, replaces the built-in vocabulary (and Vocab is
	// its size)
	Tokenizer *Tokenizer
	// Arch is general.architecture: llama (the default), qwen2 (q, k and
	// v projections with biases, neox RoPE), qwen3 (per-head q and k
	// norms, neox RoPE, heads of HeadDim values) or phi3 (q/k/v and
	// gate/up each one tensor, neox RoPE)
	Arch string
	// HeadDim, when set, is the head size (attention.key_length) rather
	// than Dim/Heads
	HeadDim int
	// Untied writes an output head of its own, not the embedding's
	Untied bool
	// RopeFreqs writes rope_freqs.weight, the frequency divisors with
	// which Llama 3.1 and later files carry their RoPE scaling
	RopeFreqs bool
	// RopeScaling writes long-context RoPE scaling: "linear" or "yarn"
	// (rope.scaling.type, with RopeFactor), or "longrope" (Phi-3's
	// rope_factors_long and rope_factors_short tensors and the attention
	// factor its converter computes); OrigContext is the context before
	// the scaling (rope.scaling.original_context_length)
	RopeScaling string
	RopeFactor  float32
	OrigContext int
	// SlidingWindow and SWAPattern, for gemma2 and gemma3, set
	// attention.sliding_window and attention.sliding_window_pattern (0:
	// the file says nothing, llama.cpp's defaults hold)
	SlidingWindow, SWAPattern int
	// Added are the special tokens the model's own tokenizer adds from
	// AddedAt, after its base vocabulary, as control tokens; the ids past
	// them to Vocab are "[PAD<id>]", unused, as llama.cpp's converter
	// pads them. Loaders look some of them up by their text (llama.cpp
	// looks up Phi-3's <|endoftext|>, and fails without it).
	Added   []string
	AddedAt int
	// EOS, when above 0, is the id of the end of a sequence in place of
	// </s>'s (an added token's)
	EOS int
}

// phi3Added are Phi-3-mini's added tokens, ids 32000 to 32010, as its
// tokenizer.json gives them.
var phi3Added = []string{"<|endoftext|>", "<|assistant|>", "<|placeholder1|>", "<|placeholder2|>", "<|placeholder3|>",
	"<|placeholder4|>", "<|system|>", "<|end|>", "<|placeholder5|>", "<|placeholder6|>", "<|user|>"}

// Shapes are the shapes of the stories family, a tiny one for tests, and
// the shapes of small models people run (sizes, heads, vocabulary size and
// architecture as their config.json files give them; the vocabulary
// itself is synth's): the speed of a real model of that shape, with dummy
// weights.
var Shapes = map[string]Shape{
	"tiny": {Name: "tiny", Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 256},
	"15m":  {Name: "15m", Dim: 288, Hidden: 768, Layers: 6, Heads: 6, KVHeads: 6, Vocab: 32000, Context: 4096},
	"110m": {Name: "110m", Dim: 768, Hidden: 2048, Layers: 12, Heads: 12, KVHeads: 12, Vocab: 32000, Context: 4096},
	"smollm2-135m": {Name: "smollm2-135m", Dim: 576, Hidden: 1536, Layers: 30, Heads: 9, KVHeads: 3, Vocab: 49152,
		Context: 8192},
	"qwen2.5-0.5b": {Name: "qwen2.5-0.5b", Arch: "qwen2", Dim: 896, Hidden: 4864, Layers: 24, Heads: 14, KVHeads: 2,
		Vocab: 151936, Context: 32768},
	"qwen3-0.6b": {Name: "qwen3-0.6b", Arch: "qwen3", HeadDim: 128, Dim: 1024, Hidden: 3072, Layers: 28, Heads: 16,
		KVHeads: 8, Vocab: 151936, Context: 40960},
	"llama-3.2-1b": {Name: "llama-3.2-1b", RopeFreqs: true, Dim: 2048, Hidden: 8192, Layers: 16, Heads: 32, KVHeads: 8,
		Vocab: 128256, Context: 131072},
	"gemma-3-1b": {Name: "gemma-3-1b", Arch: "gemma3", HeadDim: 256, SlidingWindow: 512, Dim: 1152, Hidden: 6912,
		Layers: 26, Heads: 4, KVHeads: 1, Vocab: 262144, Context: 32768},
	"phi-3-mini": {Name: "phi-3-mini", Arch: "phi3", Untied: true, Dim: 3072, Hidden: 8192, Layers: 32, Heads: 32,
		KVHeads: 32, Vocab: 32064, Context: 4096, Added: phi3Added, AddedAt: 32000, EOS: 32000},
}

// ShapeNames lists the shapes in size order.
// Made says whether f was made here (Write, Bytes): its weights are
// dummy ones, by its general.name.
func Made(f *gguf.File) bool {
	name, err := f.String("general.name")
	return err == nil && strings.HasPrefix(name, namePrefix)
}

// namePrefix begins the general.name of every file made here.
const namePrefix = "tpsbench-synth-"

func ShapeNames() []string {
	names := make([]string, 0, len(Shapes))
	for n := range Shapes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return Shapes[names[i]].Dim < Shapes[names[j]].Dim })
	return names
}

// Lookup finds a shape by name.
func Lookup(name string) (Shape, error) {
	p, ok := Shapes[strings.ToLower(name)]
	if !ok {
		return p, fmt.Errorf("unknown model shape %q (want %s)", name, strings.Join(ShapeNames(), ", "))
	}
	return p, nil
}

// Formats are the weight formats synth writes.
var Formats = []gguf.TensorType{gguf.F32, gguf.F16, gguf.Q8_0, gguf.Q4_0}

// CheckFormat says whether synth writes typ.
func CheckFormat(typ gguf.TensorType) error {
	if !slices.Contains(Formats, typ) {
		return fmt.Errorf("format %s: synth writes F32, F16, Q8_0 and Q4_0", typ)
	}
	return nil
}

// fileType is general.file_type (llama_ftype) for an all-one-format model.
func fileType(t gguf.TensorType) uint32 {
	switch t {
	case gguf.F32:
		return 0
	case gguf.F16:
		return 1
	case gguf.Q4_0:
		return 2
	case gguf.Q8_0:
		return 7
	}
	return 0
}

// Write writes a model of shape p with 2-D weights in format typ.
func Write(w io.Writer, p Shape, typ gguf.TensorType, seed uint64) error {
	md, tensors, err := build(p, typ, seed)
	if err != nil {
		return err
	}
	return gguf.Write(w, md, tensors)
}

// build makes the metadata and tensors of Write's model.
func build(p Shape, typ gguf.TensorType, seed uint64) ([]gguf.KV, []*gguf.Tensor, error) {
	md, arch, hd, err := header(p, typ, seed)
	if err != nil {
		return nil, nil, err
	}
	if p.Tokenizer != nil {
		p.Vocab = len(p.Tokenizer.Tokens)
	}
	w := &weights{typ: typ, r: rand.New(rand.NewPCG(seed, 0x77e1))}
	w.model(p, arch, hd)
	return md, w.tensors, nil
}

// WriteMetadata writes the GGUF file Write would, without its tensors:
// the model's metadata and vocabulary only, what a loader reads before
// any weight (llama.cpp's vocab_only), at any shape's size in bytes of
// vocabulary.
func WriteMetadata(w io.Writer, p Shape, typ gguf.TensorType, seed uint64) error {
	md, _, _, err := header(p, typ, seed)
	if err != nil {
		return err
	}
	return gguf.Write(w, md, nil)
}

// header is the model's metadata and vocabulary, its architecture and
// its head size.
func header(p Shape, typ gguf.TensorType, seed uint64) (md []gguf.KV, arch string, hd int, err error) {
	if err := checkShape(p, typ); err != nil {
		return nil, "", 0, err
	}
	var vocab []gguf.KV
	if p.Tokenizer != nil {
		p.Vocab, vocab = len(p.Tokenizer.Tokens), p.Tokenizer.metadata()
	} else if vocab, err = vocabularyMetadata(p, seed); err != nil {
		return nil, "", 0, err
	}
	hd = p.Dim / p.Heads
	if p.HeadDim > 0 {
		hd = p.HeadDim
	}
	arch = p.Arch
	switch arch {
	case "":
		arch = "llama"
	case "llama", "qwen2", "qwen3", "phi3", "gemma", "gemma2", "gemma3":
	default:
		return nil, "", 0, fmt.Errorf("architecture %q: synth writes llama, qwen2, qwen3, phi3, gemma, gemma2 and gemma3", arch)
	}
	if md, err = metadata(p, typ, arch, hd); err != nil {
		return nil, "", 0, err
	}
	return append(md, vocab...), arch, hd, nil
}

// checkShape refuses a shape that no model has, or whose rows are not
// whole blocks of typ.
func checkShape(p Shape, typ gguf.TensorType) error {
	if err := CheckFormat(typ); err != nil {
		return err
	}
	if p.Dim <= 0 || p.Heads <= 0 || p.KVHeads <= 0 || p.Layers <= 0 || p.Hidden <= 0 || p.Context <= 0 ||
		p.HeadDim == 0 && p.Dim%p.Heads != 0 || p.Heads%p.KVHeads != 0 || p.HeadDim < 0 {
		return fmt.Errorf("shape %s: %d heads (%d key/value) do not divide an embedding of %d, or a size is not positive", p.Name, p.Heads, p.KVHeads, p.Dim)
	}
	if bs := typ.BlockSize(); p.Dim%bs != 0 || p.Hidden%bs != 0 || p.HeadDim*p.Heads%bs != 0 {
		return fmt.Errorf("shape %s: rows of %d and %d values are not whole %s blocks of %d", p.Name, p.Dim, p.Hidden, typ, bs)
	}
	return nil
}

// vocabularyMetadata is the tokenizer of a made-up SentencePiece
// vocabulary of p's size, with the tokens p's tokenizer adds.
func vocabularyMetadata(p Shape, seed uint64) ([]gguf.KV, error) {
	base := p.Vocab
	if len(p.Added) > 0 {
		base = p.AddedAt
	}
	if base+len(p.Added) > p.Vocab {
		return nil, fmt.Errorf("shape %s: %d added tokens from id %d do not fit a vocabulary of %d", p.Name, len(p.Added), p.AddedAt, p.Vocab)
	}
	pieces, scores, types, err := Vocabulary(base, seed)
	if err != nil {
		return nil, err
	}
	for _, t := range p.Added {
		pieces, scores, types = append(pieces, t), append(scores, 0), append(types, tokenizer.TypeControl)
	}
	for id := len(pieces); id < p.Vocab; id++ {
		pieces, scores, types = append(pieces, fmt.Sprintf("[PAD%d]", id)), append(scores, 0), append(types, tokenizer.TypeUnused)
	}
	eos := 2
	if p.EOS > 0 {
		eos = p.EOS
	}
	return []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Value: gguf.Strings(pieces)},
		{Key: "tokenizer.ggml.scores", Value: gguf.Float32s(scores)},
		{Key: "tokenizer.ggml.token_type", Value: gguf.Int32s(types)},
		{Key: "tokenizer.ggml.bos_token_id", Value: uint32(1)},
		{Key: "tokenizer.ggml.eos_token_id", Value: uint32(eos)},
		{Key: "tokenizer.ggml.unknown_token_id", Value: uint32(0)},
		{Key: "tokenizer.ggml.add_bos_token", Value: true},
		{Key: "tokenizer.ggml.add_eos_token", Value: false},
	}, nil
}

// metadata is the model's hyperparameters, as arch's keys name them.
func metadata(p Shape, typ gguf.TensorType, arch string, hd int) ([]gguf.KV, error) {
	ropeBase := float32(10000)
	if arch == "gemma3" {
		ropeBase = 1e6 // the global layers'; the sliding ones keep 10000
	}
	md := []gguf.KV{
		{Key: "general.architecture", Value: arch},
		{Key: "general.name", Value: namePrefix + p.Name},
		{Key: "general.file_type", Value: fileType(typ)},
		{Key: "general.alignment", Value: uint32(32)},
		{Key: arch + ".context_length", Value: uint32(p.Context)},
		{Key: arch + ".embedding_length", Value: uint32(p.Dim)},
		{Key: arch + ".block_count", Value: uint32(p.Layers)},
		{Key: arch + ".feed_forward_length", Value: uint32(p.Hidden)},
		{Key: arch + ".attention.head_count", Value: uint32(p.Heads)},
		{Key: arch + ".attention.head_count_kv", Value: uint32(p.KVHeads)},
		{Key: arch + ".attention.layer_norm_rms_epsilon", Value: float32(1e-5)},
		{Key: arch + ".rope.freq_base", Value: ropeBase},
		{Key: arch + ".rope.dimension_count", Value: uint32(hd)},
		{Key: arch + ".attention.key_length", Value: uint32(hd)},
		{Key: arch + ".attention.value_length", Value: uint32(hd)},
		{Key: arch + ".vocab_size", Value: uint32(p.Vocab)},
	}
	switch p.RopeScaling {
	case "":
	case "linear", "yarn":
		md = append(md, gguf.KV{Key: arch + ".rope.scaling.type", Value: p.RopeScaling},
			gguf.KV{Key: arch + ".rope.scaling.factor", Value: p.RopeFactor})
	case "longrope":
		// as convert_hf_to_gguf.py's Phi-3: sqrt(1 + ln(scale)/ln(original))
		scale := float64(p.Context) / float64(p.OrigContext)
		attn := 1.0
		if scale > 1 {
			attn = math.Sqrt(1 + math.Log(scale)/math.Log(float64(p.OrigContext)))
		}
		md = append(md, gguf.KV{Key: arch + ".rope.scaling.attn_factor", Value: float32(attn)})
	default:
		return nil, fmt.Errorf("RoPE scaling %q: synth writes linear, yarn and longrope", p.RopeScaling)
	}
	if p.RopeScaling != "" {
		md = append(md, gguf.KV{Key: arch + ".rope.scaling.original_context_length", Value: uint32(p.OrigContext)})
	}
	if p.SlidingWindow > 0 {
		md = append(md, gguf.KV{Key: arch + ".attention.sliding_window", Value: uint32(p.SlidingWindow)})
	}
	if p.SWAPattern > 0 {
		md = append(md, gguf.KV{Key: arch + ".attention.sliding_window_pattern", Value: uint32(p.SWAPattern)})
	}
	return md, nil
}

// weights makes a model's tensors of random values, in order.
type weights struct {
	typ     gguf.TensorType // of the 2-D weights
	r       *rand.Rand
	tensors []*gguf.Tensor
}

// matrix adds rows of cols uniform values of standard deviation sd.
func (w *weights) matrix(name string, cols, rows int, sd float64) {
	a := float32(sd * math.Sqrt(3))
	vals := make([]float32, cols)
	data := make([]byte, 0, rows*w.typ.RowBytes(cols)) // grown by appends, it was copied over and over
	for r0 := 0; r0 < rows; r0++ {
		for i := range vals {
			vals[i] = (2*w.r.Float32() - 1) * a
		}
		data = encode(data, vals, w.typ)
	}
	w.tensors = append(w.tensors, &gguf.Tensor{Name: name, Dims: []uint64{uint64(cols), uint64(rows)}, Type: w.typ, Data: data})
}

// vector adds n F32 values uniform in [lo, lo+width).
func (w *weights) vector(name string, n int, lo, width float32) {
	data := make([]byte, 0, 4*n)
	for i := 0; i < n; i++ {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(lo+width*w.r.Float32()))
	}
	w.tensors = append(w.tensors, &gguf.Tensor{Name: name, Dims: []uint64{uint64(n)}, Type: gguf.F32, Data: data})
}

// model adds every tensor of a model of shape p in architecture arch. The
// output scale is chosen so that logits spread over several units, not a
// flat distribution.
func (w *weights) model(p Shape, arch string, hd int) {
	// The embedding doubles as the output head (tied, as in the stories
	// models): its scale sets the logits' spread.
	w.matrix("token_embd.weight", p.Dim, p.Vocab, 4/math.Sqrt(float64(p.Dim)))
	for l := 0; l < p.Layers; l++ {
		w.layer(p, arch, hd, fmt.Sprintf("blk.%d.", l))
	}
	w.vector("output_norm.weight", p.Dim, 0.8, 0.4)
	if p.Untied {
		w.matrix("output.weight", p.Dim, p.Vocab, 4/math.Sqrt(float64(p.Dim)))
	}
	if p.RopeFreqs {
		// from 1 (high frequencies, unscaled) to 8 (low ones), as Llama
		// 3.1's scaling with a factor of 8
		w.vector("rope_freqs.weight", hd/2, 1, 7)
	}
	if p.RopeScaling == "longrope" {
		// Phi-3.5-mini's factors run from about 1 to 1.2 (short) and 1 to
		// 60 (long)
		w.vector("rope_factors_long.weight", hd/2, 1, 59)
		w.vector("rope_factors_short.weight", hd/2, 1, 0.2)
	}
}

// layer adds one block's tensors, named with prefix pre.
func (w *weights) layer(p Shape, arch string, hd int, pre string) {
	norm := func(name string) { w.vector(name, p.Dim, 0.8, 0.4) }
	kv := p.KVHeads * hd
	norm(pre + "attn_norm.weight")
	sd := 1 / math.Sqrt(float64(p.Dim))
	if arch == "phi3" { // q, k and v in one tensor
		w.matrix(pre+"attn_qkv.weight", p.Dim, p.Heads*hd+2*kv, sd)
	} else {
		w.matrix(pre+"attn_q.weight", p.Dim, p.Heads*hd, sd)
		w.matrix(pre+"attn_k.weight", p.Dim, kv, sd)
		w.matrix(pre+"attn_v.weight", p.Dim, kv, sd)
	}
	if arch == "qwen3" || arch == "gemma3" {
		w.vector(pre+"attn_q_norm.weight", hd, 0.8, 0.4)
		w.vector(pre+"attn_k_norm.weight", hd, 0.8, 0.4)
	}
	if arch == "gemma2" || arch == "gemma3" {
		norm(pre + "post_attention_norm.weight")
		norm(pre + "post_ffw_norm.weight")
	}
	if arch == "qwen2" {
		w.vector(pre+"attn_q.bias", p.Heads*hd, -0.5, 1)
		w.vector(pre+"attn_k.bias", kv, -0.5, 1)
		w.vector(pre+"attn_v.bias", kv, -0.5, 1)
	}
	w.matrix(pre+"attn_output.weight", p.Heads*hd, p.Dim, 1/math.Sqrt(float64(p.Heads*hd)))
	norm(pre + "ffn_norm.weight")
	if arch == "phi3" { // gate, then up, in one tensor
		w.matrix(pre+"ffn_up.weight", p.Dim, 2*p.Hidden, sd)
	} else {
		w.matrix(pre+"ffn_gate.weight", p.Dim, p.Hidden, sd)
		w.matrix(pre+"ffn_up.weight", p.Dim, p.Hidden, sd)
	}
	w.matrix(pre+"ffn_down.weight", p.Hidden, p.Dim, 1/math.Sqrt(float64(p.Hidden)))
}

func encode(dst []byte, vals []float32, typ gguf.TensorType) []byte {
	switch typ {
	case gguf.F32:
		for _, v := range vals {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
	case gguf.F16:
		for _, v := range vals {
			dst = binary.LittleEndian.AppendUint16(dst, half.FromFloat32(v))
		}
	case gguf.Q8_0:
		dst = llama.QuantizeQ8_0(dst, vals)
	case gguf.Q4_0:
		dst = llama.QuantizeQ4_0(dst, vals)
	}
	return dst
}

// Bytes returns a model file in memory. The file is written twice: once
// to count its bytes, then into a buffer of that size. A buffer grown as
// the file was written copied it (and faulted in fresh pages) several
// times over: `tpsbench serve` of the default model (61 MB) was ready in
// 1.5-1.6 s, and is in 0.83-0.89 s.
func Bytes(p Shape, typ gguf.TensorType, seed uint64) ([]byte, error) {
	md, tensors, err := build(p, typ, seed)
	if err != nil {
		return nil, err
	}
	size, err := gguf.Size(md, tensors)
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	if err := gguf.Write(buf, md, tensors); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
