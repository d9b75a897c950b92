//go:build !purego

package llama

//go:noescape
func sumSquaresAVX512(x *float32, n int) float64

//go:noescape
func scaleMulAVX512(out, x, w *float32, scale float32, n int)

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
	n := len(x) &^ 15
	if avx512 && n > 0 {
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
