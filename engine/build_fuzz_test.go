package engine_test

import (
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/synth"
)

// fuzzShape is the smallest model synth writes: each fuzz input builds
// and runs it.
var fuzzShape = synth.Shape{Name: "fuzz", Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Vocab: 340, Context: 8}

// withMetadata rewrites a model file with one metadata value replaced (or
// added), to seed the fuzzer with shapes that lie.
func withMetadata(t testing.TB, b []byte, key string, v gguf.Value) []byte {
	t.Helper()
	f, err := gguf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	md := append([]gguf.KV(nil), f.Metadata...)
	found := false
	for i := range md {
		if md[i].Key == key {
			md[i].Value, found = v, true
		}
	}
	if !found {
		md = append(md, gguf.KV{Key: key, Value: v})
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, md, f.Tensors); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzBuildModel: a file that parses builds an engine (model, tokenizer,
// scheduler) or fails with an error, and an engine that builds answers a
// request; no input panics. Parsing alone is FuzzParse's.
func FuzzBuildModel(f *testing.F) {
	b, err := synth.Bytes(fuzzShape, gguf.Q8_0, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, m := range []struct {
		key string
		v   gguf.Value
	}{
		{"llama.rope.dimension_count", uint64(1) << 63},
		{"llama.rope.dimension_count", uint32(7)},
		{"llama.attention.head_count_kv", uint32(0)},
		{"llama.attention.head_count_kv", uint64(1) << 40},
		{"llama.attention.head_count", uint32(3)},
		{"llama.context_length", uint32(1)},
		{"llama.attention.layer_norm_rms_epsilon", float32(-1)},
		{"llama.rope.freq_base", float32(0)},
		{"tokenizer.ggml.tokens", gguf.Strings([]string{"a"})},
		{"tokenizer.ggml.scores", gguf.Float32s([]float32{1})},
		{"tokenizer.ggml.token_type", gguf.Int32s(make([]int32, fuzzShape.Vocab))},
		{"tokenizer.ggml.bos_token_id", uint32(1 << 30)},
		{"general.architecture", "gemma"},
	} {
		f.Add(withMetadata(f, b, m.key, m.v))
	}
	// the other architectures and the byte-level BPE tokenizer
	for _, shape := range []synth.Shape{
		{Name: "fuzz-qwen2", Arch: "qwen2", Untied: true, Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Vocab: 340, Context: 8},
		{Name: "fuzz-qwen3", Arch: "qwen3", HeadDim: 32, Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Vocab: 340, Context: 8},
		{Name: "fuzz-llama31", RopeFreqs: true, Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Vocab: 340, Context: 8},
		{Name: "fuzz-longrope", Arch: "phi3", RopeScaling: "longrope", OrigContext: 4, Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 2, Vocab: 340, Context: 8},
		{Name: "fuzz-yarn", Arch: "qwen2", RopeScaling: "yarn", RopeFactor: 4, OrigContext: 4, Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Vocab: 340, Context: 8},
		{Name: "fuzz-bpe", Dim: 32, Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Context: 8, Tokenizer: synth.ByteLevelVocabulary([]string{"the", " the", "cat", " cat", " sat"})},
	} {
		b, err := synth.Bytes(shape, gguf.F32, 1)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if shape.RopeScaling != "" {
			arch := shape.Arch
			f.Add(withMetadata(f, b, arch+".rope.scaling.original_context_length", uint32(0)))
			f.Add(withMetadata(f, b, arch+".rope.scaling.factor", float32(-3)))
			f.Add(withMetadata(f, b, arch+".rope.scaling.attn_factor", float32(math.Inf(1))))
			f.Add(withMetadata(f, b, arch+".rope.scaling.type", "su"))
		}
		if shape.Tokenizer != nil {
			f.Add(withMetadata(f, b, "tokenizer.ggml.pre", "no-such-pre"))
			f.Add(withMetadata(f, b, "tokenizer.ggml.merges", gguf.Strings([]string{"nospace"})))
			f.Add(withMetadata(f, b, "tokenizer.chat_template", "{% for m in messages %}<|im_start|>{% endfor %}"))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := gguf.Parse(b)
		if err != nil {
			return
		}
		e, err := engine.FromFile(file, "fuzz", engine.Options{Threads: 1})
		if err != nil {
			return
		}
		defer e.Close()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/completions",
			strings.NewReader(`{"model":"fuzz","prompt":"the cat","max_tokens":2}`))
		e.Handler.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK && !strings.Contains(rec.Body.String(), `"usage"`) {
			t.Fatalf("200 without usage: %s", rec.Body)
		}
	})
}
