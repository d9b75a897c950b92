package roofline

import (
	"fmt"
	"runtime"
	"time"

	"github.com/tpsbench/tpsbench/engine/llama"
)

// MeasureBandwidth is the rate, in GB/s, at which the engine's own batch-1
// products read bytes of weights on threads threads: from memory for
// hundreds of MiB, from the caches for less. A decode step reads its
// weights so, once a token.
func MeasureBandwidth(threads, bytes int) (float64, error) {
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	return llama.ProductBandwidth(threads, bytes, 100*time.Millisecond)
}

// memoryProbeBytes is a read far larger than any machine's caches.
const memoryProbeBytes = 256 << 20

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
	bw, err := MeasureBandwidth(threads, memoryProbeBytes)
	if err != nil {
		return Hardware{}, fmt.Errorf("measuring this machine's memory bandwidth: %w", err)
	}
	return Hardware{Name: "this", Bandwidth: bw, TFLOPS: gflops / 1e3, MemoryGB: memoryGB(), Note: "measured here"}, nil
}
