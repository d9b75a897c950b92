//go:build !purego

package llama

// expConsts are the broadcast constants of expShiftAVX2, in its order.
const expConsts = 12

//go:noescape
func expShiftAVX2(dst, src *float32, n int, mx, inv float32, c *[expConsts][8]float32) float64

//go:noescape
func expShiftAVX512(dst, src *float32, n int, mx, inv float32, c *[expConsts][8]float32) float64

// expTable holds exp32's constants, each repeated across a vector.
var expTable = func() (t [expConsts][8]float32) {
	for i, v := range [expConsts]float32{expLog2e, 0.5, expLn2hi, expLn2lo,
		expP0, expP1, expP2, expP3, expP4, expP5, 1, expLow} {
		for j := range t[i] {
			t[i][j] = v
		}
	}
	return t
}()

// expShift sets p[i] = exp32((logits[i] - mx) * inv) and returns their
// sum; every logit must be at most mx, and inv positive.
func expShift(p, logits []float32, mx, inv float32) float64 {
	n := len(logits)
	var sum float64
	head := 0
	switch {
	case avx512 && n >= 16:
		head = n &^ 15
		sum = expShiftAVX512(&p[0], &logits[0], head, mx, inv, &expTable)
	case simd && n >= 8:
		head = n &^ 7
		sum = expShiftAVX2(&p[0], &logits[0], head, mx, inv, &expTable)
	}
	for i := head; i < n; i++ {
		e := exp32((logits[i] - mx) * inv)
		p[i] = e
		sum += float64(e)
	}
	return sum
}
