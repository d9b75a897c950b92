//go:build !purego

package llama

//go:noescape
func sumSquaresAVX512(x *float32, n int) float64

//go:noescape
func scaleMulAVX512(out, x, w *float32, scale float32, n int)

//go:noescape
func drawBlocksAVX512(p *float32, blocks int, r float64, acc *float64) int

//go:noescape
func indexF32AVX512(x *float32, n int, v float32) int

//go:noescape
func ropeAVX512(x *float32, heads, hd int, cs *float32, n int)

// sumSquares is the sum of x[i]*x[i], each square rounded to float32 and
// summed in float64.
func sumSquares(x []float32) float64 {
	n := len(x) &^ 15
	if !avx512 || n == 0 {
		return sumSquaresGo(x)
	}
	return sumSquaresAVX512(&x[0], n) + sumSquaresGo(x[n:])
}

// scaleMul sets out[i] = x[i] * scale * w[i].
func scaleMul(out, x, w []float32, scale float32) {
	n := 0
	if avx512 {
		n = len(x) &^ 15
	}
	if n > 0 {
		out, w = out[:len(x)], w[:len(x)]
		scaleMulAVX512(&out[0], &x[0], &w[0], scale, n)
	}
	scaleMulGo(out[n:], x[n:], w[n:], scale)
}

// rope rotates the first len(cs) values of each head of x by the angles
// of cs (ropeGo); the "normal" pairs go sixteen values at a time.
func rope(x []float32, heads, hd int, cs []float32, neox bool) {
	n := len(cs)
	if !avx512 || neox || n == 0 || n%16 != 0 || heads == 0 {
		ropeGo(x, heads, hd, cs, neox)
		return
	}
	_ = x[(heads-1)*hd+n-1]
	ropeAVX512(&x[0], heads, hd, &cs[0], n)
}

// drawBlocks is where drawAll's walk one by one starts: the first value
// of the first block of drawBlock values whose running sum passes r (the
// values after the last whole block when none does), with acc the sum of
// the values before it.
func drawBlocks(p []float32, r float64) (start int, acc float64) {
	blocks := len(p) / drawBlock
	if !avx512 || blocks == 0 {
		return drawBlocksGo(p, r)
	}
	b := drawBlocksAVX512(&p[0], blocks, r, &acc)
	return b * drawBlock, acc
}

// indexF32 is the first index of v in x, or -1.
func indexF32(x []float32, v float32) int {
	i := 0
	if n := len(x) &^ 15; avx512 && n > 0 {
		if i = indexF32AVX512(&x[0], n, v); i < n {
			return i
		}
	}
	return indexF32Go(x, v, i)
}
