package llama

import "math"

// addNorm adds add (when not nil) to x and sets out to x's RMS norm
// scaled by w, for each of n entries, over the threads.
func (m *Model) addNorm(out, x, add, w []float32, n int) {
	m.norm.out, m.norm.x, m.norm.add, m.norm.w = out, x, add, w
	m.pool.Run(n, m.normRange)
}

func (p *pass) normEntries(lo, hi int) {
	a, dim := &p.norm, p.c.Dim
	for i := lo; i < hi; i++ {
		x := a.x[i*dim : (i+1)*dim]
		if a.add != nil {
			axpy(1, a.add[i*dim:(i+1)*dim], x) // 1*v + x is v + x, bit for bit
		}
		rmsNorm(a.out[i*dim:(i+1)*dim], x, a.w, p.c.Eps)
	}
}

// rmsNorm sets out to x's RMS norm scaled by w. A norm was 2% of a
// served batch of 32's time in scalar loops (15m F32): the sum's additions
// waited one on another; sixteen lanes at a time (elementwise_amd64.s)
// they do not.
func rmsNorm(out, x, w []float32, eps float32) {
	// llama.cpp sums in double: in another order here, which moves the
	// sum by a few of its 53 bits and the float32 mean almost never
	ss := sumSquares(x)
	// 1.0f/sqrtf(mean + eps) in float32 as llama.cpp: a scale one bit
	// apart moves an activation across a quantization boundary now and
	// then, and the logits by percents of their spread
	mean := float32(ss / float64(len(x)))
	scale := 1 / float32(math.Sqrt(float64(mean+eps)))
	scaleMul(out, x, w, scale)
}

// sumSquaresGo and scaleMulGo are the portable forms of sumSquares and
// scaleMul (elementwise_amd64.go), which take their tails.
func sumSquaresGo(x []float32) float64 {
	var ss float64
	for _, v := range x {
		ss += float64(v * v)
	}
	return ss
}

func scaleMulGo(out, x, w []float32, scale float32) {
	for i, v := range x {
		out[i] = float32(v*scale) * w[i]
	}
}

// headNorm RMS-normalises each head of x by its own norm, scaled by w (no
// norm when w is nil).
func headNorm(x, w []float32, eps float32) {
	for h := 0; w != nil && h < len(x)/len(w); h++ {
		v := x[h*len(w) : (h+1)*len(w)]
		rmsNorm(v, v, w, eps)
	}
}

// postNorm RMS-normalises each entry's output of a sub-layer before it
// joins the residual stream (gemma2 and gemma3; none when w is nil).
func postNorm(x, w []float32, dim int, eps float32) {
	for i := 0; w != nil && i < len(x)/dim; i++ {
		v := x[i*dim : (i+1)*dim]
		rmsNorm(v, v, w, eps)
	}
}
