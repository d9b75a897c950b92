package llama

import (
	"math/rand/v2"
	"sort"
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
	probs       []float32
	cand        []int
}

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
	if cap(s.probs) < n {
		s.probs = make([]float32, n)
		s.cand = make([]int, n)
	}
	p := s.probs[:n]
	mx := logits[argmax(logits)]
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
	cand := s.cand[:0]
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
		// summed in float64, as mass was: float32 sums of a whole
		// vocabulary can fall short of it and land on the last token
		r, acc := float64(r), 0.0
		for i, v := range p {
			acc += float64(v)
			if r < acc {
				return i
			}
		}
		return len(p) - 1
	}
	for _, c := range cand {
		acc += p[c]
		if r < acc {
			return c
		}
	}
	return cand[len(cand)-1]
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
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
