package llama

import (
	"math/rand/v2"
	"sort"
	"sync"
)

// Sampler picks the next token from logits: greedily at temperature 0,
// otherwise from the softmax at that temperature, cut to the TopK most
// likely tokens and then to the smallest set holding TopP of the mass.
// It is seeded, so the same seed gives the same text.
type Sampler struct {
	Temperature float32
	TopP        float32 // 1 keeps everything
	TopK        int     // 0 keeps everything
	rng         *rand.Rand
}

// sampleScratch holds the vocabulary-sized buffers a draw works in,
// shared by all samplers: one of their own (384 kB at a 32,000-token
// vocabulary) made each served request fault in fresh pages as its first
// token was drawn, 14 MB a round of 32 requests on the 15m model.
type sampleScratch struct {
	probs []float32
	cand  []int
}

var sampleScratches = sync.Pool{New: func() any { return new(sampleScratch) }}

// NewSampler returns a sampler; topP outside (0, 1] means 1.
func NewSampler(temperature, topP float32, topK int, seed uint64) *Sampler {
	if !(topP > 0 && topP <= 1) {
		topP = 1
	}
	return &Sampler{Temperature: temperature, TopP: topP, TopK: max(topK, 0), rng: rand.New(rand.NewPCG(seed, seed^0xda3e39cb94b95bdb))}
}

// Sample returns the chosen token id.
func (s *Sampler) Sample(logits []float32) int {
	if s.Temperature <= 0 || s.TopK == 1 {
		return argmax(logits)
	}
	n := len(logits)
	scratch := sampleScratches.Get().(*sampleScratch)
	defer sampleScratches.Put(scratch)
	if cap(scratch.probs) < n {
		scratch.probs = make([]float32, n)
		scratch.cand = make([]int, n)
	}
	p := scratch.probs[:n]
	mx := maxF32(logits)
	sum := expShift(p, logits, mx, 1/s.Temperature)
	if s.TopK == 0 && s.TopP >= 1 {
		// the whole distribution: drawn from the unnormalised weights,
		// which saves a pass over the vocabulary
		return s.draw(p, nil, float32(sum))
	}
	norm := float32(1 / sum)
	for i := range p {
		p[i] *= norm
	}
	cand := scratch.cand[:0]
	// Tokens below this share can never be inside the nucleus, so they
	// need not be sorted (llama2.c's shortcut).
	cutoff := float32(0)
	if s.TopK == 0 && n > 1 {
		cutoff = (1 - s.TopP) / float32(n-1)
	}
	for i, v := range p {
		if v >= cutoff {
			cand = append(cand, i)
		}
	}
	sort.Slice(cand, func(a, b int) bool {
		if p[cand[a]] != p[cand[b]] {
			return p[cand[a]] > p[cand[b]]
		}
		return cand[a] < cand[b]
	})
	if s.TopK > 0 && len(cand) > s.TopK {
		cand = cand[:s.TopK]
	}
	var mass float32
	keep := len(cand)
	for i, c := range cand {
		mass += p[c]
		if mass >= s.TopP {
			keep = i + 1
			break
		}
	}
	cand = cand[:keep]
	mass = 0
	for _, c := range cand {
		mass += p[c]
	}
	return s.draw(p, cand, mass)
}

// draw samples from p restricted to cand (all tokens when cand is nil),
// whose probabilities sum to mass.
func (s *Sampler) draw(p []float32, cand []int, mass float32) int {
	r := s.rng.Float32() * mass
	var acc float32
	if cand == nil {
		return drawAll(p, float64(r))
	}
	for _, c := range cand {
		acc += p[c]
		if r < acc {
			return c
		}
	}
	return cand[len(cand)-1]
}

// drawBlock is how many weights drawAll sums at once to find where r
// falls before it walks them one by one.
const drawBlock = 64

// drawAll is the first token whose cumulative weight passes r, summed in
// float64 as expShift's mass was (float32 sums of a whole vocabulary can
// fall short of it and land on the last token). Whole blocks are summed
// first (drawBlocks), then the block r falls in is walked one by one.
func drawAll(p []float32, r float64) int {
	i, acc := drawBlocks(p, r)
	for ; i < len(p); i++ {
		acc += float64(p[i])
		if r < acc {
			return i
		}
	}
	return len(p) - 1
}

// drawBlocksGo is drawBlocks portably: each block summed with four
// independent additions (one running sum made every addition wait for
// the one before, two thirds of a draw's time), which sixteen lanes do
// better still (elementwise_amd64.s: the draw was 1.5% of a served batch
// of 32's time on the default model).
func drawBlocksGo(p []float32, r float64) (int, float64) {
	acc, i := 0.0, 0
	for ; i+drawBlock <= len(p); i += drawBlock {
		b := p[i : i+drawBlock : i+drawBlock]
		var s0, s1, s2, s3 float64
		for j := 0; j+3 < len(b); j += 4 {
			s0 += float64(b[j])
			s1 += float64(b[j+1])
			s2 += float64(b[j+2])
			s3 += float64(b[j+3])
		}
		if sum := (s0 + s1) + (s2 + s3); r < acc+sum {
			break
		} else {
			acc += sum
		}
	}
	return i, acc
}

// argmax is the first index of x's largest value.
func argmax(x []float32) int {
	if len(x) == 0 {
		return 0
	}
	// the largest found with independent vector maxima, then its first
	// place: a scan that compares with a constant, not with the best so
	// far (a chain of loads and branches, 3% of a served batch's time),
	// sixteen at a time (one by one, a greedy draw from 32,000 logits
	// took 10.2 us; 1.65 so, BenchmarkSample)
	if mx := maxF32(x); mx == mx { // not NaN
		if i := indexF32(x, mx); i >= 0 {
			return i
		}
	}
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// indexF32Go is the first index of v in x from from on, or -1.
func indexF32Go(x []float32, v float32, from int) int {
	for i := from; i < len(x); i++ {
		if x[i] == v {
			return i
		}
	}
	return -1
}

// maxF32Go is the largest of x, portably; x must not be empty.
func maxF32Go(x []float32) float32 {
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	return m
}

// SampleAll samples the next token of several sequences at once, each with
// its own sampler (a sampler must not appear twice), spread over the
// model's threads: after a step the pool is idle, and a softmax over the
// vocabulary per sequence, one after another on one thread, took a
// quarter of the engine's time at 32 sequences.
func (m *Model) SampleAll(samplers []*Sampler, logits [][]float32, out []int) {
	m.sampling.samplers, m.sampling.logits, m.sampling.out = samplers, logits, out
	m.pool.Run(len(samplers), m.sampleRange)
	m.sampling.samplers, m.sampling.logits, m.sampling.out = nil, nil, nil
}

func (p *pass) sampleEntries(lo, hi int) {
	a := &p.sampling
	for i := lo; i < hi; i++ {
		a.out[i] = a.samplers[i].Sample(a.logits[i])
	}
}
