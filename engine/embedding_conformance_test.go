package engine_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/sched"
)

// TestEmbeddingsAgreeWithLlamaCpp pools the same tokens' hidden states in
// llama.cpp (an embeddings context of that pooling, one decode) and in
// the engine's scheduler (chunked prefill splitting the prompt, so the
// pooled states come from several steps), and compares the vectors, not
// normalized. With F32 weights the two differ in float32 summation order
// only, as the logits do (held to 1e-4 of their spread there): measured
// here under 1e-6 of the vector's largest value, held to 1e-4.
func TestEmbeddingsAgreeWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	for _, shape := range []string{"tiny", "15m", oddShape.Name} {
		path := writeModel(t, shape, gguf.F32)
		_, m, done := openModel(t, path)
		s := sched.New(m, sched.Options{MaxSeqs: 4, ChunkedPrefill: true, MaxPrefillTokens: 5})
		for _, pooling := range []string{sched.PoolMean, sched.PoolLast, sched.PoolCLS} {
			t.Run(fmt.Sprintf("%s/%s", shape, pooling), func(t *testing.T) {
				args := []string{ref, "embed", path, pooling}
				for _, tok := range conformanceTokens {
					args = append(args, strconv.Itoa(tok))
				}
				var want []float64
				for _, line := range strings.Fields(run(t, "", args...)) {
					v, err := strconv.ParseFloat(line, 64)
					if err != nil {
						t.Fatalf("llamaref embed: %q", line)
					}
					want = append(want, v)
				}
				ev, err := s.Submit(context.Background(), sched.Request{Prompt: conformanceTokens, Pooling: pooling})
				if err != nil {
					t.Fatal(err)
				}
				var got []float32
				for e := range ev {
					if e.Err != nil {
						t.Fatal(e.Err)
					}
					got = e.Embedding
				}
				if len(got) != len(want) {
					t.Fatalf("%d values, llama.cpp's %d", len(got), len(want))
				}
				worst, top := 0.0, 0.0
				for i, w := range want {
					worst = math.Max(worst, math.Abs(float64(got[i])-w))
					top = math.Max(top, math.Abs(w))
				}
				t.Logf("max difference %.2g of the largest value", worst/top)
				if worst/top > 1e-4 {
					t.Errorf("max difference %.3g of the largest value, tolerance 1e-4", worst/top)
				}
			})
		}
		s.Close()
		done()
	}
}
