package llama_test

import (
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
)

// TestParamsCountEveryWeight: the parameter count is the file's tensors'
// elements, biases (qwen2), per-head norms (qwen3, gemma3), post norms
// (gemma2, gemma3) and RoPE's frequency divisors (Llama 3.1) among them:
// model info left them out (Qwen2.5-0.5B: 494,005,120 for 494,032,768).
// Bytes read per token in F32 are 4 bytes a parameter, the embedding
// table counted as the one row a token reads (and once more whole as the
// output head when tied), the divisors not read at all.
func TestParamsCountEveryWeight(t *testing.T) {
	for _, shape := range []synth.Shape{
		{Name: "llama", Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 64},
		{Name: "qwen2", Arch: "qwen2", Untied: true, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 64},
		{Name: "qwen3", Arch: "qwen3", HeadDim: 32, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 64},
		{Name: "gemma2", Arch: "gemma2", HeadDim: 32, SlidingWindow: 3, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 64},
		{Name: "gemma3", Arch: "gemma3", HeadDim: 32, SlidingWindow: 3, SWAPattern: 2, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 1, Vocab: 512, Context: 64},
		{Name: "phi3", Arch: "phi3", Untied: true, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 4, Vocab: 512, Context: 64},
		{Name: "llama31", RopeFreqs: true, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 1, Vocab: 512, Context: 64},
	} {
		t.Run(shape.Name, func(t *testing.T) {
			b, err := synth.Bytes(shape, gguf.F32, 1)
			if err != nil {
				t.Fatal(err)
			}
			f, err := gguf.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			m, err := llama.Load(f, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			var elements, divisors int
			for _, tn := range f.Tensors {
				elements += int(tn.Elements())
				if tn.Name == "rope_freqs.weight" {
					divisors = int(tn.Elements())
				}
			}
			if got := m.Params(); got != elements {
				t.Errorf("Params %d, the file's tensors hold %d", got, elements)
			}
			table := shape.Vocab * shape.Dim
			want := 4 * (elements - divisors - table + shape.Dim)
			if !shape.Untied {
				want += 4 * table // the tied output head reads it whole
			}
			if got := m.FileBytesPerToken(); got != want {
				t.Errorf("FileBytesPerToken %d, want %d", got, want)
			}
		})
	}
}
