package roofline

import (
	"runtime"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/engine/llama"
)

// MeasureBandwidth reads a buffer much larger than the caches with the
// engine's own vector kernel on threads threads and returns the best of a
// few passes in GB/s: what a memory-bound decode step can hope for here.
func MeasureBandwidth(threads int) float64 {
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	const n = 64 << 20 // floats: 256 MiB
	buf := make([]float32, n)
	for i := range buf {
		buf[i] = float32(i & 7)
	}
	best := 0.0
	for pass := 0; pass < 4; pass++ {
		var wg sync.WaitGroup
		start := time.Now()
		per := n / threads
		for t := 0; t < threads; t++ {
			part := buf[t*per : (t+1)*per]
			wg.Go(func() { _ = llama.Sum(part) })
		}
		wg.Wait()
		gbs := float64(n*4) / time.Since(start).Seconds() / 1e9
		best = max(best, gbs)
	}
	return best
}

// MeasureFLOPS runs the engine's dot kernel on cache-resident data and
// returns GFLOP/s: the compute roof of this machine for the engine.
func MeasureFLOPS(threads int) float64 {
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	a := make([]float32, 4096)
	for i := range a {
		a[i] = 1
	}
	const reps = 20000
	best := 0.0
	for pass := 0; pass < 3; pass++ {
		var wg sync.WaitGroup
		start := time.Now()
		for t := 0; t < threads; t++ {
			wg.Go(func() {
				for r := 0; r < reps; r++ {
					_ = llama.Dot(a, a)
				}
			})
		}
		wg.Wait()
		best = max(best, float64(threads*reps*len(a)*2)/time.Since(start).Seconds()/1e9)
	}
	return best
}

// ThisMachine measures the machine tpsbench runs on.
func ThisMachine(threads int) Hardware {
	return Hardware{Name: "this", Bandwidth: MeasureBandwidth(threads), TFLOPS: MeasureFLOPS(threads) / 1e3, MemoryGB: memoryGB(), Note: "measured here"}
}
