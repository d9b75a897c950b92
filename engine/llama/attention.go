package llama

import (
	"math"
	"sync/atomic"
)

// attention is the attention being run, read by the pool's threads.
type attention struct {
	entries []Entry
	layer   int
	q, out  []float32
	groups  int // tasks an entry's heads are split into
	// a scores buffer for each thread at work, claimed by busy
	scratch [][]float32
	busy    []atomic.Bool
}

// claim takes a free scratch slot: at most as many tasks run at once as
// there are slots, so one is always free.
func (a *attention) claim() int {
	for {
		for i := range a.busy {
			if !a.busy[i].Load() && a.busy[i].CompareAndSwap(false, true) {
				return i
			}
		}
	}
}

// attnBlock is how many cached positions attention takes at a time: few
// enough that a block's keys or values stay in the core's cache while
// each head of a group reads them (256 rows of 512 bytes, two grouped
// heads of 128, are 128 kB), and enough that each kernel call streams a
// long run of rows: at 16, attention took 3.48 s of CPU in 1,280 steps
// of the default model's batch of 32 (BenchmarkServedDecode), and 2.34 s
// with a block as long as the context.
const attnBlock = 256

// attend computes attention for the (entry, head) pairs [lo, hi) of the
// step in m.attn: each query head against its key/value head's cache up to
// the entry's position. It runs on the pool; pairs are independent.
func (p *pass) attend(lo, hi int) {
	c := p.c
	a := &p.attn
	hd, kvDim, dim := c.HeadDim(), c.KVDim(), c.QDim()
	group := c.Heads / c.KVHeads
	scale := c.AttnScale
	if scale == 0 {
		scale = float32(1 / math.Sqrt(float64(hd)))
	}
	// scores of a group's heads, in a buffer of this thread's own
	slot := a.claim()
	defer a.busy[slot].Store(false)
	for idx := lo; idx < hi; idx++ {
		i, g := idx/a.groups, idx%a.groups
		h0, h1 := g*c.Heads/a.groups, (g+1)*c.Heads/a.groups
		e := a.entries[i]
		n := p.st.pos[i] + 1
		t0 := 0 // the first key attended to: the window's, for a layer that slides
		if c.Slides(a.layer) {
			t0 = max(0, n-c.Window)
		}
		if len(a.scratch[slot]) < (h1-h0)*n {
			a.scratch[slot] = make([]float32, 2*(h1-h0)*n) // doubling: steps rarely allocate
		}
		buf := a.scratch[slot]
		scores := func(h int) []float32 { return buf[(h-h0)*n:][:n] }
		query := func(h int) []float32 { return a.q[i*dim+h*hd : i*dim+(h+1)*hd] }
		if p.kvHalf {
			for h := h0; h < h1; h++ {
				roundHalf(query(h)) // as llama.cpp rounds it against an F16 cache
			}
		}
		// Positions in blocks whose cached rows stay in cache while every
		// head of the group reads its part: each row comes from memory
		// once, not once a head.
		for tb := t0; tb < n; tb += attnBlock {
			te := min(tb+attnBlock, n)
			for h := h0; h < h1; h++ {
				kvOff := (h / group) * hd
				if p.kvHalf {
					scoresStridedHalf(query(h), e.Seq.hk[a.layer][tb*kvDim+kvOff:], kvDim, scale, scores(h)[tb:te])
				} else {
					scoresStrided(query(h), e.Seq.k[a.layer][tb*kvDim+kvOff:], kvDim, scale, scores(h)[tb:te])
				}
			}
		}
		for h := h0; h < h1; h++ {
			if c.AttnSoftcap > 0 { // gemma2
				softcap(scores(h)[t0:], c.AttnSoftcap)
			}
			softmax(scores(h)[t0:])
			if p.kvHalf {
				roundHalf(scores(h)[t0:]) // the weights too, as llama.cpp's
			}
			clear(a.out[i*dim+h*hd : i*dim+(h+1)*hd])
		}
		for tb := t0; tb < n; tb += attnBlock {
			te := min(tb+attnBlock, n)
			for h := h0; h < h1; h++ {
				out := a.out[i*dim+h*hd : i*dim+(h+1)*hd]
				kvOff := (h / group) * hd
				if p.kvHalf {
					accumulateStridedHalf(scores(h)[tb:te], e.Seq.hv[a.layer][tb*kvDim+kvOff:], kvDim, out)
				} else {
					accumulateStrided(scores(h)[tb:te], e.Seq.v[a.layer][tb*kvDim+kvOff:], kvDim, out)
				}
			}
		}
	}
}

// ropeAngles writes the cosine and sine of each rotated pair's angle at
// pos (RopeDim values), times its magnitude (ropeAngle). Every layer's q
// and k of an entry rotate by these; a layer that slides by its own base.
// pows holds ropePow of each pair: a power a pair, for every entry of
// every step, was most of this serial part of a step.
func ropeAngles(cs []float32, c *Config, pos int, slides bool, pows []float64) {
	for i := 0; i < c.RopeDim; i += 2 {
		theta, mag := c.ropeAngleAt(pos, i, slides, pows[i/2])
		sin, cos := math.Sincos(theta)
		cs[i], cs[i+1] = float32(cos*mag), float32(sin*mag)
	}
}

// ropePows is ropePow of each pair, for ropeAngles.
func (c Config) ropePows(slides bool) []float64 {
	pows := make([]float64, c.RopeDim/2)
	for i := range pows {
		pows[i] = c.ropePow(2*i, slides)
	}
	return pows
}

// ropePow is base^(-i/RopeDim), the part of pair i/2's angle that does
// not depend on the position.
func (c Config) ropePow(i int, slides bool) float64 {
	base := float64(c.RopeBase)
	if slides {
		base = float64(c.RopeBaseSWA)
	}
	return math.Pow(base, -float64(i)/float64(c.RopeDim))
}

// ropeAngle is the angle by which pair i/2 of a head turns at pos, as
// ggml's rope computes it: pos * base^(-i/RopeDim), over RopeFreqs[i/2];
// times RopeScale, or with YaRN blended between that and the unscaled
// angle; and the magnitude the pair is scaled by. A layer that slides
// (gemma3) turns by RopeBaseSWA, unscaled.
func (c Config) ropeAngle(pos, i int, slides bool) (theta, mag float64) {
	return c.ropeAngleAt(pos, i, slides, c.ropePow(i, slides))
}

// ropeAngleAt is ropeAngle with pow = ropePow(i, slides).
func (c *Config) ropeAngleAt(pos, i int, slides bool, pow float64) (theta, mag float64) {
	scale := float64(c.RopeScale)
	if slides {
		scale = 1
	}
	extrap := float64(pos) * pow
	if c.RopeFreqs != nil {
		extrap /= float64(c.RopeFreqs[i/2])
	}
	theta, mag = extrap*scale, 1
	if c.RopeAttnFactor != 0 {
		mag = float64(c.RopeAttnFactor)
	}
	if c.RopeYaRN {
		low, high := float64(c.RopeYaRNDims[0]), float64(c.RopeYaRNDims[1])
		mix := 1 - min(1, max(0, (float64(i/2)-low)/max(0.001, high-low)))
		theta = theta*(1-mix) + extrap*mix
		mag *= 1 + 0.1*math.Log(1/scale)
	}
	return theta, mag
}

// ropeGo rotates the first len(cs) values of each head by the angles of
// cs: pair i is (2i, 2i+1), llama.cpp's "normal" RoPE, or (i, i+dims/2),
// its "neox" RoPE. Each product is rounded before the sum (the
// conversions forbid fusing them), as the vector form computes them.
func ropeGo(x []float32, heads, hd int, cs []float32, neox bool) {
	half := len(cs) / 2
	for i := 0; i < len(cs); i += 2 {
		c, s := cs[i], cs[i+1]
		a, b := i, i+1
		if neox {
			a, b = i/2, i/2+half
		}
		for h := 0; h < heads; h++ {
			v := x[h*hd : (h+1)*hd]
			x0, x1 := v[a], v[b]
			v[a] = float32(x0*c) - float32(x1*s)
			v[b] = float32(x0*s) + float32(x1*c)
		}
	}
}

// softmax turns attention scores into weights in place, the exponentials
// eight at a time as sampling takes them (expShift): one at a time, they
// were most of the attention's time at short contexts.
func softmax(x []float32) {
	inv := float32(1 / expShift(x, x, maxF32(x), 1))
	for i := range x {
		x[i] *= inv
	}
}

// softcap is cap*tanh(x/cap), as llama.cpp caps Gemma 2's scores and
// logits (scaled in float32, tanh as tanhf).
func softcap(x []float32, limit float32) {
	inv := 1 / limit
	for i, v := range x {
		x[i] = float32(math.Tanh(float64(v*inv))) * limit
	}
}
