package llama

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// probeRows, probeCols and probeBatch shape the compute probe: an F32
// matrix of 576 kB, which stays in a core's L2, against 32 inputs, the
// batch at which the engine's products run fastest.
const probeRows, probeCols, probeBatch = 512, 288, 32

// probeFLOPs is what one run of the probe computes.
const probeFLOPs = 2 * probeRows * probeCols * probeBatch

// productProbe is one thread's share of the compute probe: a weight
// matrix in the engine's own form and a batch of inputs.
type productProbe struct {
	w    *Matrix
	ins  []vecInput
	out  []float32
	rows int
}

func newProductProbe(seed uint64) (*productProbe, error) {
	rng := rand.New(rand.NewPCG(seed, seed))
	next := func() float32 { return 2*rng.Float32() - 1 }
	data := make([]byte, 4*probeRows*probeCols)
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
	p := &productProbe{w: w, ins: make([]vecInput, probeBatch), out: make([]float32, probeBatch*probeRows), rows: probeRows}
	for b := range p.ins {
		p.ins[b].f = in[b*probeCols : (b+1)*probeCols]
	}
	return p, nil
}

// run computes every row's product with every input once, as a forward
// pass does.
func (p *productProbe) run() {
	if p.w.packed != nil {
		p.w.rowsPacked(p.out, p.ins, 0, p.rows/unitRows(p.w.Type))
	} else {
		p.w.rowsBatch(p.out, p.ins, 0, p.rows)
	}
}

// bestRate runs each probe on a thread of its own, each run doing work
// (FLOPs, bytes), and returns the best of three passes in billions a
// second; a pass runs each probe as many times as take the first one
// about d/2 alone.
func bestRate(probes []*productProbe, d time.Duration, work float64) float64 {
	reps := 1
	for {
		start := time.Now()
		for range reps {
			probes[0].run()
		}
		if time.Since(start) >= d/2 || reps >= 1<<20 {
			break
		}
		reps *= 2
	}
	best := 0.0
	for range 3 {
		var wg sync.WaitGroup
		start := time.Now()
		for _, p := range probes {
			wg.Go(func() {
				for range reps {
					p.run()
				}
			})
		}
		wg.Wait()
		best = max(best, float64(len(probes)*reps)*work/time.Since(start).Seconds()/1e9)
	}
	return best
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
		p, err := newProductProbe(uint64(t) + 1)
		if err != nil {
			return 0, err
		}
		probes[t] = p
	}
	return bestRate(probes, d, probeFLOPs), nil
}

// bandwidthCols is the width of ProductBandwidth's matrices: the width of
// a small model's rows.
const bandwidthCols = 1024

// ProductBandwidth measures the rate, in GB/s, at which the engine's
// batch-1 F32 products read their weights on threads threads at once,
// each thread over a matrix of its share of bytes: what a decoding step
// reads, read as the engine reads it (from memory for hundreds of MiB,
// from the caches for less). A sum over a plain buffer, which measured
// this before, was bound by its own adds, not by memory: 16-22 GB/s
// whatever the buffer's size, where the engine's steps read faster. The
// best of three passes of about d each is kept.
func ProductBandwidth(threads, bytes int, d time.Duration) (float64, error) {
	threads = max(threads, 1)
	unit := unitRows(typeF32)
	rows := max(unit, bytes/threads/(4*bandwidthCols)/unit*unit)
	probes := make([]*productProbe, threads)
	for t := range probes {
		// written, so that every page is one of its own (untouched
		// pages all map the kernel's one zero page, read from cache)
		data := make([]byte, 4*rows*bandwidthCols)
		for i := 0; i < len(data); i += 4 {
			binary.LittleEndian.PutUint32(data[i:], math.Float32bits(float32(i%61)/61))
		}
		w, err := newMatrix(&gguf.Tensor{Name: "bandwidth", Type: typeF32, Dims: []uint64{bandwidthCols, uint64(rows)}, Data: data})
		if err != nil {
			return 0, err
		}
		p := &productProbe{w: w, ins: make([]vecInput, 1), out: make([]float32, rows), rows: rows}
		p.ins[0].f = make([]float32, bandwidthCols)
		for i := range p.ins[0].f {
			p.ins[0].f[i] = float32(i%7) - 3
		}
		probes[t] = p
	}
	return bestRate(probes, d, float64(4*rows*bandwidthCols)), nil
}
