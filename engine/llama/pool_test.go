package llama

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestPoolRunsEveryIndexOnce: whatever the split, each index of a job
// is run exactly once, and Run returns only after the last; also with
// more threads than Go runs at once (GOMAXPROCS 1), where Run's wait
// yields every turn.
func TestPoolRunsEveryIndexOnce(t *testing.T) {
	t.Run("GOMAXPROCS=1", func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		runsEveryIndexOnce(t)
	})
	runsEveryIndexOnce(t)
}

func runsEveryIndexOnce(t *testing.T) {
	for _, threads := range []int{1, 2, 3} {
		p := NewPool(threads)
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 100, 1000, 4097} {
			counts := make([]atomic.Int32, n)
			p.Run(n, func(lo, hi int) {
				if lo >= hi && n > 0 {
					t.Errorf("threads %d n %d: empty range [%d, %d)", threads, n, lo, hi)
				}
				for i := lo; i < hi; i++ {
					counts[i].Add(1)
				}
			})
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("threads %d n %d: index %d ran %d times", threads, n, i, c)
				}
			}
		}
		p.Close()
	}
}

// BenchmarkPoolRun is what a pass over the threads costs beside its work:
// a batch-32 step of the default model runs 56 of them.
func BenchmarkPoolRun(b *testing.B) {
	for _, n := range []int{2, 32, 288} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p := NewPool(2)
			defer p.Close()
			var sink atomic.Int64
			job := func(lo, hi int) { sink.Add(int64(hi - lo)) }
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.Run(n, job)
			}
		})
	}
}
