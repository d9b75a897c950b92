package sched_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/sched"
)

// BenchmarkScheduled is the default model's served decoding through the
// scheduler, without HTTP: a wave of batch requests (24-token prompts, 128
// tokens at temperature 1) submitted at once, each drained by a goroutine
// of its own as a server's handler drains it, b.N waves. decode-ms is the
// mean gap between a request's tokens, as a server's inter-token latency
// is timed: set beside llama's BenchmarkServedDecode (the engine alone)
// and the server over HTTP, it tells the scheduler's and the hand-off's
// cost from HTTP's (bench/httpcost.sh).
func BenchmarkScheduled(b *testing.B) {
	const prompt, decode = 24, 128
	m := synthModel(b, "15m", gguf.F32, 0)
	tokens := make([]int, prompt)
	for i := range tokens {
		tokens[i] = 300 + i
	}
	for _, batch := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("15m/F32/batch%d", batch), func(b *testing.B) {
			s := sched.New(m, sched.Options{MaxSeqs: batch})
			defer s.Close()
			var mu sync.Mutex
			var gaps time.Duration
			var n int
			for it := 0; it < b.N; it++ {
				var wg sync.WaitGroup
				for i := range batch {
					ev, err := s.Submit(context.Background(), sched.Request{
						Prompt: tokens, MaxTokens: decode, IgnoreEOS: true,
						Sampler: llama.NewSampler(1, 1, 0, uint64(it*batch+i)),
					})
					if err != nil {
						b.Fatal(err)
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						var first, last time.Time
						made := 0
						for e := range ev {
							if e.Done {
								if e.Err != nil {
									b.Error(e.Err)
								}
								continue
							}
							last = time.Now()
							if made == 0 {
								first = last
							}
							made++
						}
						if made > 1 {
							mu.Lock()
							gaps += last.Sub(first)
							n += made - 1
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.N*batch*decode)/b.Elapsed().Seconds(), "tok/s")
			if n > 0 {
				b.ReportMetric(gaps.Seconds()*1e3/float64(n), "decode-ms")
			}
		})
	}
}
