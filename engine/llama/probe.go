package llama

import (
	"encoding/binary"
	"math"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// probeRows, probeCols and probeBatch shape the compute probe: an F32
// matrix of 576 kB, which stays in a core's L2, against 32 inputs, the
// batch at which the engine's products run fastest.
const probeRows, probeCols, probeBatch = 512, 288, 32

// productProbe is one thread's share of the compute probe: a weight
// matrix in the engine's own form and a batch of inputs.
type productProbe struct {
	w   *Matrix
	ins []vecInput
	out []float32
}

func newProductProbe(seed uint32) (*productProbe, error) {
	data := make([]byte, 4*probeRows*probeCols)
	x := seed | 1
	next := func() float32 { // xorshift: values in [-1, 1), no zeros to skip
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return float32(x)/float32(1<<31) - 1
	}
	for i := 0; i < probeRows*probeCols; i++ {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(next()))
	}
	w, err := newMatrix(&gguf.Tensor{Name: "probe", Type: typeF32, Dims: []uint64{probeCols, probeRows}, Data: data})
	if err != nil {
		return nil, err
	}
	in := make([]float32, probeBatch*probeCols)
	for i := range in {
		in[i] = next()
	}
	p := &productProbe{w: w, ins: make([]vecInput, probeBatch), out: make([]float32, probeBatch*probeRows)}
	for b := range p.ins {
		p.ins[b].f = in[b*probeCols : (b+1)*probeCols]
	}
	return p, nil
}

// run computes every row's product with every input once, as a forward
// pass at batch 32 does, and returns the FLOPs that took.
func (p *productProbe) run() int {
	if p.w.packed != nil {
		p.w.rowsPacked(p.out, p.ins, 0, probeRows/unitRows(p.w.Type))
	} else {
		p.w.rowsBatch(p.out, p.ins, 0, probeRows)
	}
	return 2 * probeRows * probeCols * probeBatch
}

// ProductGFLOPS measures the rate, in GFLOP/s, at which the engine's F32
// products run on threads threads at once with their weights in cache:
// the compute roof of a forward pass on this machine. Each thread has a
// matrix of its own; the best of three passes of about d each is kept.
// (A dot product of two vectors, which roofline used before, loads a
// value for every multiply-add and ran at a quarter of this rate here:
// the engine's batch of 32 went past the "compute-bound" TPS it gave.)
func ProductGFLOPS(threads int, d time.Duration) (float64, error) {
	threads = max(threads, 1)
	probes := make([]*productProbe, threads)
	for t := range probes {
		p, err := newProductProbe(uint32(t) + 1)
		if err != nil {
			return 0, err
		}
		probes[t] = p
	}
	reps := 1 // products a thread makes in a pass: doubled until they take d/2
	for {
		start := time.Now()
		for range reps {
			probes[0].run()
		}
		if time.Since(start) >= d/2 {
			break
		}
		reps *= 2
	}
	best := 0.0
	for range 3 {
		var wg sync.WaitGroup
		flops := make([]int, threads)
		start := time.Now()
		for t, p := range probes {
			wg.Go(func() {
				for range reps {
					flops[t] += p.run()
				}
			})
		}
		wg.Wait()
		total := 0
		for _, f := range flops {
			total += f
		}
		best = max(best, float64(total)/time.Since(start).Seconds()/1e9)
	}
	return best, nil
}
