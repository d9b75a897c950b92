package llama_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
)

func load(t testing.TB, shape string, typ gguf.TensorType, threads int) (*gguf.File, *llama.Model) {
	t.Helper()
	p, _ := synth.Lookup(shape)
	b, err := synth.Bytes(p, typ, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	m, err := llama.Load(f, threads)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return f, m
}

// TestForwardMatchesReference compares every position's logits with the
// float64 reference, which converts activations as the engine does: the
// rest is float32 rounding (about 1e-6 relative a step, over a few
// hundred steps). An activation converted to F16 or Q8_0 that sits on a
// rounding boundary can land one step apart in float32 and float64, which
// moves a logit by about 1e-3 of their spread; so the tolerance, max |diff|
// over the logits' standard deviation, is 1e-4 for F32 and 5e-3 for the
// formats whose activations are converted.
func TestForwardMatchesReference(t *testing.T) {
	tol := map[gguf.TensorType]float64{gguf.F32: 1e-4, gguf.F16: 5e-3, gguf.Q8_0: 5e-3, gguf.Q4_0: 5e-3}
	for _, typ := range synth.Formats {
		for _, threads := range []int{1, 2} {
			for _, packed := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%d-threads/packed-%v", typ, threads, packed), func(t *testing.T) {
					// without packing, the kernels machines without VNNI run
					restore := llama.SetPackingForTest(packed)
					f, m := load(t, "tiny", typ, threads)
					restore()
					ref := llama.NewReference(f, m.Config)
					seq := m.NewSequence(16)
					tokens := []int{1, 300, 301, 7, 450, 299, 511, 2, 42, 100}
					for pos, tok := range tokens {
						got, err := seq.Forward(tok)
						if err != nil {
							t.Fatal(err)
						}
						want := ref.Forward(tok)
						mean, sd := 0.0, 0.0
						for _, v := range want {
							mean += v
						}
						mean /= float64(len(want))
						for _, v := range want {
							sd += (v - mean) * (v - mean)
						}
						sd = math.Sqrt(sd / float64(len(want)))
						if sd < 1 {
							t.Fatalf("position %d: reference logits spread only %.3f; the dummy weights should spread them", pos, sd)
						}
						worst := 0.0
						for i := range want {
							worst = math.Max(worst, math.Abs(float64(got[i])-want[i]))
						}
						if worst/sd > tol[typ] {
							t.Errorf("position %d: max logit error %.4g is %.3g of the spread %.3f (tolerance %.g)", pos, worst, worst/sd, sd, tol[typ])
						}
					}
				})
			}
		}
	}
}

// TestArchitecturesMatchReference is TestForwardMatchesReference for the
// variations of the llama block: qwen2's biases and neox RoPE with an
// untied head, qwen3's per-head norms and wide heads, and Llama 3.1's
// RoPE frequency divisors.
func TestArchitecturesMatchReference(t *testing.T) {
	for _, shape := range []synth.Shape{
		{Name: "qwen2", Arch: "qwen2", Untied: true, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 64},
		{Name: "qwen3", Arch: "qwen3", HeadDim: 32, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 64},
		{Name: "gemma2", Arch: "gemma2", HeadDim: 32, SlidingWindow: 3, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 64},
		{Name: "gemma3", Arch: "gemma3", HeadDim: 32, SlidingWindow: 3, SWAPattern: 2, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 1, Vocab: 512, Context: 64},
		{Name: "phi3", Arch: "phi3", Untied: true, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 4, Vocab: 512, Context: 64},
		{Name: "llama31", RopeFreqs: true, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 1, Vocab: 512, Context: 64},
		{Name: "phi3-longrope", Arch: "phi3", RopeScaling: "longrope", OrigContext: 16, Untied: true, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 4, Vocab: 512, Context: 64},
		{Name: "qwen2-yarn", Arch: "qwen2", RopeScaling: "yarn", RopeFactor: 4, OrigContext: 16, Dim: 64, Hidden: 192, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 64},
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
			m, err := llama.Load(f, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ref := llama.NewReference(f, m.Config)
			seq := m.NewSequence(16)
			for pos, tok := range []int{1, 300, 301, 7, 450, 299, 511, 2} {
				got, err := seq.Forward(tok)
				if err != nil {
					t.Fatal(err)
				}
				want := ref.Forward(tok)
				worst, mag := 0.0, 0.0
				for i := range want {
					worst = math.Max(worst, math.Abs(float64(got[i])-want[i]))
					mag = math.Max(mag, math.Abs(want[i]))
				}
				if worst > 1e-4*mag {
					t.Errorf("position %d: max logit error %.3g, largest logit %.3g", pos, worst, mag)
				}
			}
		})
	}
}

func TestSequencesDoNotInterfere(t *testing.T) {
	_, m := load(t, "tiny", gguf.Q8_0, 2)
	a, b, alone := m.NewSequence(8), m.NewSequence(8), m.NewSequence(8)
	toks := []int{1, 10, 20, 30, 40}
	for i, tok := range toks {
		la, _ := a.Forward(tok)
		la = append([]float32(nil), la...)
		_, _ = b.Forward(toks[len(toks)-1-i])
		lw, _ := alone.Forward(tok)
		for j := range la {
			if la[j] != lw[j] {
				t.Fatalf("position %d: interleaving another sequence changed logit %d", i, j)
			}
		}
	}
}

func TestForwardErrors(t *testing.T) {
	_, m := load(t, "tiny", gguf.F32, 1)
	s := m.NewSequence(1)
	if _, err := s.Forward(-1); err == nil {
		t.Error("negative token accepted")
	}
	if _, err := s.Forward(m.Vocab); err == nil {
		t.Error("token past the vocabulary accepted")
	}
	for i := 0; i < m.Context; i++ {
		if _, err := s.Forward(3); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Forward(3); err == nil {
		t.Error("forward past the context accepted")
	}
}

func TestForwardAllocatesNothing(t *testing.T) {
	for _, typ := range []gguf.TensorType{gguf.Q4_0, gguf.Q8_0, gguf.F32} {
		_, m := load(t, "tiny", typ, 2)
		s := m.NewSequence(m.Context)
		if allocs := testing.AllocsPerRun(50, func() { _, _ = s.Forward(5) }); allocs != 0 {
			t.Errorf("%s: %.1f allocations per token", typ, allocs)
		}
		// a batch, which takes the four-input kernels
		entries := make([]llama.Entry, 8)
		for i := range entries {
			entries[i] = llama.Entry{Seq: m.NewSequence(m.Context), Token: 5 + i, Logits: true}
		}
		if allocs := testing.AllocsPerRun(50, func() { _, _ = m.Step(entries) }); allocs != 0 {
			t.Errorf("%s: %.1f allocations per step of 8", typ, allocs)
		}
	}
}

func BenchmarkForward(b *testing.B) {
	for _, shape := range []string{"15m", "110m"} {
		for _, typ := range synth.Formats {
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/%s/%dt", shape, typ, threads), func(b *testing.B) {
					_, m := load(b, shape, typ, threads)
					s := m.NewSequence(m.Context)
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if s.Pos() >= 256 {
							s = m.NewSequence(m.Context)
						}
						_, _ = s.Forward(300 + i%100)
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tok/s")
				})
			}
		}
	}
}

// TestStepEqualsOneByOne: a batched step (a prompt chunk of one sequence
// next to single decoding tokens of others) gives the logits of feeding
// each token alone. Quantized products sum integers per block in the same
// order either way, so they agree bit for bit; the F32 and F16 kernels
// that take four inputs at once sum in another order than the one-input
// kernel, which moves results by float32 rounding: 1e-5 of the spread.
func TestStepEqualsOneByOne(t *testing.T) {
	for _, typ := range synth.Formats {
		t.Run(typ.String(), func(t *testing.T) {
			_, m := load(t, "tiny", typ, 2)
			alone := [3]*llama.Sequence{m.NewSequence(16), m.NewSequence(16), m.NewSequence(16)}
			batched := [3]*llama.Sequence{m.NewSequence(16), m.NewSequence(16), m.NewSequence(16)}
			// sequences 1 and 2 start with a token each
			for i := 1; i < 3; i++ {
				if _, err := alone[i].Forward(10 * i); err != nil {
					t.Fatal(err)
				}
				if _, err := batched[i].Forward(10 * i); err != nil {
					t.Fatal(err)
				}
			}
			prompt := []int{1, 300, 301, 302, 303}
			var want [][]float32
			for j, tok := range prompt {
				l, _ := alone[0].Forward(tok)
				if j == len(prompt)-1 {
					want = append(want, append([]float32(nil), l...))
				}
			}
			for i := 1; i < 3; i++ {
				l, _ := alone[i].Forward(20 + i)
				want = append(want, append([]float32(nil), l...))
			}
			var entries []llama.Entry
			for j, tok := range prompt {
				entries = append(entries, llama.Entry{Seq: batched[0], Token: tok, Logits: j == len(prompt)-1})
			}
			entries = append(entries, llama.Entry{Seq: batched[1], Token: 21, Logits: true}, llama.Entry{Seq: batched[2], Token: 22, Logits: true})
			got, err := m.Step(entries)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 {
				t.Fatalf("%d logit rows, want 3", len(got))
			}
			tol := float32(0)
			if typ == gguf.F32 || typ == gguf.F16 {
				tol = 1e-5 * 4 // logits spread about 4
			}
			for r := range got {
				for i := range got[r] {
					if d := got[r][i] - want[r][i]; d > tol || d < -tol {
						t.Fatalf("row %d logit %d: batched %v, alone %v", r, i, got[r][i], want[r][i])
					}
				}
			}
			if batched[0].Pos() != 5 || batched[1].Pos() != 2 {
				t.Errorf("positions %d %d", batched[0].Pos(), batched[1].Pos())
			}
		})
	}
}

func TestStepRejectsBadBatches(t *testing.T) {
	_, m := load(t, "tiny", gguf.F32, 1)
	a, b := m.NewSequence(4), m.NewSequence(4)
	if _, err := m.Step([]llama.Entry{{Seq: a, Token: 1}, {Seq: b, Token: 1}, {Seq: a, Token: 2}}); err == nil {
		t.Error("interleaved entries of one sequence accepted")
	}
	if a.Pos() != 0 || b.Pos() != 0 {
		t.Error("a rejected step changed the sequences")
	}
	if _, err := m.Step(nil); err == nil {
		t.Error("empty step accepted")
	}
}

func BenchmarkBatchedDecode(b *testing.B) {
	for _, shape := range []string{"15m", "110m"} {
		for _, typ := range []gguf.TensorType{gguf.F32, gguf.Q8_0, gguf.Q4_0} {
			for _, batch := range []int{1, 4, 8, 16, 32} {
				benchStep(b, shape, typ, batch)
			}
		}
	}
}

func benchStep(b *testing.B, shape string, typ gguf.TensorType, batch int) {
	{
		{
			b.Run(fmt.Sprintf("%s/%s/batch%d", shape, typ, batch), func(b *testing.B) {
				_, m := load(b, shape, typ, 2)
				seqs := make([]*llama.Sequence, batch)
				entries := make([]llama.Entry, batch)
				// room for the 128 positions used, as the scheduler reserves
				// a request's prompt and output
				const positions = 128
				for i := range seqs {
					seqs[i] = m.NewSequence(positions)
				}
				// the synthesized file and earlier runs' models are garbage
				// now: collect it before timing, as a server would have
				// long before its steady state
				runtime.GC()
				b.ResetTimer()
				for it := 0; it < b.N; it++ {
					if seqs[0].Pos() >= positions {
						for i := range seqs {
							seqs[i] = m.NewSequence(positions)
						}
					}
					for i := range entries {
						entries[i] = llama.Entry{Seq: seqs[i], Token: 300 + i, Logits: true}
					}
					if _, err := m.Step(entries); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "tok/s")
			})
		}
	}
}

func TestLoadRejectsDisagreeingShapes(t *testing.T) {
	p, _ := synth.Lookup("tiny")
	b, _ := synth.Bytes(p, gguf.F32, 1)
	f, _ := gguf.Parse(b)
	// Swap the dimensions of one matrix: the file still parses, the model must not load.
	tq := f.Tensor("blk.0.attn_k.weight")
	tq.Dims[0], tq.Dims[1] = tq.Dims[1], tq.Dims[0]
	if _, err := llama.Load(f, 1); err == nil || !strings.Contains(err.Error(), "attn_k") {
		t.Fatalf("error %v, want one naming attn_k", err)
	}
}

// BenchmarkServedDecode is the work a served batch of requests does, in
// process: batch sequences take a prompt of 24 tokens (what tpsbench
// run's default request is after the chat template) in one step that
// samples each one's first token, then 127 steps decode them together,
// each sampling at temperature 1 as the server does by default: 128
// tokens a sequence, prompts included in the time, as the server's HTTP
// throughput at the same concurrency and --max-tokens 128 counts them
// (bench/batching.sh sets the two side by side). With an F32 KV cache
// (the server's default), and an F16 one (.../kv-f16/batchN).
func BenchmarkServedDecode(b *testing.B) {
	for _, shape := range []string{"15m", "110m"} {
		for _, typ := range []gguf.TensorType{gguf.F32, gguf.Q4_0} {
			for _, kv := range []gguf.TensorType{gguf.F32, gguf.F16} {
				for _, batch := range []int{1, 8, 16, 32} {
					name := fmt.Sprintf("%s/%s/batch%d", shape, typ, batch)
					if kv == gguf.F16 {
						name = fmt.Sprintf("%s/%s/kv-f16/batch%d", shape, typ, batch)
					}
					b.Run(name, func(b *testing.B) { servedDecode(b, shape, typ, kv, batch) })
				}
			}
		}
	}
}

func servedDecode(b *testing.B, shape string, typ, kv gguf.TensorType, batch int) {
	const prompt, decode = 24, 128
	_, m := load(b, shape, typ, 2)
	if err := m.SetKVType(kv); err != nil {
		b.Fatal(err)
	}
	seqs := make([]*llama.Sequence, batch)
	samplers := make([]*llama.Sampler, batch)
	picked := make([]int, batch)
	prefill := make([]llama.Entry, 0, batch*prompt)
	entries := make([]llama.Entry, batch)
	runtime.GC()
	// decode-ms: the mean decoding step, prompts' steps left out, sampling
	// in: what a server's inter-token latency is (bench/httpcost.sh)
	var decoding time.Duration
	decodes := 0
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		var rows [][]float32
		var err error
		began := time.Now()
		if it%decode == 0 {
			// new requests: their prompts in one step
			prefill = prefill[:0]
			for i := range seqs {
				if seqs[i] != nil {
					// as the scheduler does when a request ends: its
					// cache, faulted in already, serves the next
					seqs[i].Release()
				}
				seqs[i] = m.NewSequence(prompt + decode)
				samplers[i] = llama.NewSampler(1, 1, 0, uint64(it+i))
				for j := 0; j < prompt; j++ {
					prefill = append(prefill, llama.Entry{Seq: seqs[i], Token: 300 + j, Logits: j == prompt-1})
				}
			}
			rows, err = m.Step(prefill)
		} else {
			for i := range entries {
				entries[i] = llama.Entry{Seq: seqs[i], Token: picked[i], Logits: true}
			}
			rows, err = m.Step(entries)
		}
		if err != nil {
			b.Fatal(err)
		}
		m.SampleAll(samplers, rows, picked)
		if it%decode != 0 {
			decoding += time.Since(began)
			decodes++
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "tok/s")
	if decodes > 0 {
		b.ReportMetric(decoding.Seconds()*1e3/float64(decodes), "decode-ms")
	}
}

// TestReleasedCachesAreReused: a sequence made after another's release
// (reusing its cache, stale values and all) computes what a sequence of a
// fresh model does, and the released one can no longer step.
func TestReleasedCachesAreReused(t *testing.T) {
	_, m := load(t, "tiny", gguf.F32, 2)
	_, fresh := load(t, "tiny", gguf.F32, 2)
	tokens := []int{1, 300, 301, 7, 450}
	old := m.NewSequence(len(tokens))
	for _, tok := range []int{9, 8, 7, 6, 5} {
		if _, err := old.Forward(tok); err != nil {
			t.Fatal(err)
		}
	}
	old.Release()
	if _, err := old.Forward(1); err == nil {
		t.Fatal("a released sequence stepped")
	}
	seq, ref := m.NewSequence(len(tokens)), fresh.NewSequence(len(tokens))
	for _, tok := range tokens {
		got, err := seq.Forward(tok)
		if err != nil {
			t.Fatal(err)
		}
		got = slices.Clone(got)
		want, err := ref.Forward(tok)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("token %d: logits differ from a fresh model's", tok)
		}
	}
}

// TestSetKVType: the KV cache's type is F32 or F16, chosen before the
// first sequence; an F16 cache takes half the memory a position.
func TestSetKVType(t *testing.T) {
	_, m := load(t, "tiny", gguf.F32, 1)
	f32 := m.KVBytes()
	if err := m.SetKVType(gguf.Q8_0); err == nil {
		t.Fatal("a Q8_0 KV cache was accepted")
	}
	if err := m.SetKVType(gguf.F16); err != nil {
		t.Fatal(err)
	}
	if m.KVType() != gguf.F16 || 2*m.KVBytes() != f32 {
		t.Fatalf("F16 cache: type %v, %d bytes a position against F32's %d", m.KVType(), m.KVBytes(), f32)
	}
	seq := m.NewSequence(4)
	if _, err := seq.Forward(1); err != nil {
		t.Fatal(err)
	}
	if got, want := seq.CacheBytes(), 4*m.KVBytes(); got != want {
		t.Errorf("a sequence with room for 4 positions holds %d bytes, want %d", got, want)
	}
	if err := m.SetKVType(gguf.F32); err == nil {
		t.Error("the KV type changed after a sequence was made")
	}
	kv := seq.ExportKV(nil, 0, 1)
	other := m.NewSequence(2)
	if err := other.ImportKV(kv, 1); err != nil {
		t.Fatal(err)
	}
	if err := other.ImportKV(kv[1:], 1); err == nil {
		t.Error("a short export was imported")
	}
	a, _ := seq.Forward(2)
	a = append([]float32(nil), a...)
	b, _ := other.Forward(2)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("logit %d after an imported position: %v, %v fed", i, b[i], a[i])
		}
	}
}
