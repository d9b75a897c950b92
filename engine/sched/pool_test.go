package sched_test

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/sched"
)

// hiddenStates runs prompt through m one step, every token's final
// hidden state asked for: the states the scheduler's pooling must give.
func hiddenStates(t *testing.T, m *llama.Model, prompt []int) [][]float32 {
	t.Helper()
	seq := m.NewSequence(len(prompt))
	defer seq.Release()
	entries := make([]llama.Entry, len(prompt))
	rows := make([][]float32, len(prompt))
	for i, tok := range prompt {
		rows[i] = make([]float32, m.Dim)
		entries[i] = llama.Entry{Seq: seq, Token: tok, Hidden: rows[i]}
	}
	if _, err := m.Step(entries); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestPooling: embeddings from the scheduler, submitted together with
// generations and with chunked prefill splitting their prompts over
// steps, are the prompt's hidden states pooled as asked: the mean of
// every token's, the last token's, the first's. A step's order of work
// changes only float32 summation order: held to 1e-5 of the largest value.
func TestPooling(t *testing.T) {
	m := synthModel(t, "tiny", gguf.F32, 0)
	prompt := []int{1, 17, 42, 99, 5, 63, 7, 8, 120, 33, 4}
	states := hiddenStates(t, m, prompt)
	mean := make([]float32, m.Dim)
	for _, r := range states {
		for i, v := range r {
			mean[i] += v / float32(len(prompt))
		}
	}
	want := map[string][]float32{sched.PoolMean: mean, sched.PoolLast: states[len(states)-1], sched.PoolCLS: states[0]}
	for _, chunked := range []bool{false, true} {
		s := sched.New(m, sched.Options{MaxSeqs: 8, ChunkedPrefill: chunked, MaxPrefillTokens: 4})
		var wg sync.WaitGroup
		for range 2 { // generations beside, decoding while the embeddings prefill
			wg.Go(func() { generate(t, s, []int{1, 2, 3}, 6) })
		}
		for pooling, w := range want {
			ev, err := s.Submit(context.Background(), sched.Request{Prompt: prompt, Pooling: pooling})
			if err != nil {
				t.Fatal(err)
			}
			var got []float32
			for e := range ev {
				if !e.Done || e.Err != nil {
					t.Fatalf("%s: event %+v", pooling, e)
				}
				got = e.Embedding
			}
			if d := relDiff(got, w); d > 1e-5 {
				t.Errorf("chunked %v, %s: %.3g of the largest value from the hidden states pooled", chunked, pooling, d)
			}
		}
		wg.Wait()
		s.Close()
	}
	s := sched.New(m, sched.Options{})
	defer s.Close()
	for _, bad := range []sched.Request{{Prompt: prompt, Pooling: "max"}, {Prompt: prompt, Pooling: sched.PoolMean, MaxTokens: 3}} {
		if _, err := s.Submit(context.Background(), bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// relDiff is max |got - want| over max |want|.
func relDiff(got, want []float32) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	worst, top := 0.0, 0.0
	for i := range want {
		worst = math.Max(worst, math.Abs(float64(got[i]-want[i])))
		top = math.Max(top, math.Abs(float64(want[i])))
	}
	return worst / top
}
