package roofline

import (
	"fmt"
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

// MeasureFLOPS returns the GFLOP/s of the engine's batched F32 products
// with their weights in cache, on threads threads: the compute roof of
// this machine for the engine (llama.ProductGFLOPS).
func MeasureFLOPS(threads int) (float64, error) {
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	return llama.ProductGFLOPS(threads, 100*time.Millisecond)
}

// ThisMachine measures the machine tpsbench runs on.
func ThisMachine(threads int) (Hardware, error) {
	gflops, err := MeasureFLOPS(threads)
	if err != nil {
		return Hardware{}, fmt.Errorf("measuring this machine's compute: %w", err)
	}
	return Hardware{Name: "this", Bandwidth: MeasureBandwidth(threads), TFLOPS: gflops / 1e3, MemoryGB: memoryGB(), Note: "measured here"}, nil
}
