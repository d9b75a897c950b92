//go:build !purego

package llama

//go:noescape
func halveAVX512(dst *uint16, src *float32, n int)

//go:noescape
func roundHalfAVX512(x *float32, n int)

//go:noescape
func scoresHalfAVX512(q *float32, k *uint16, stride, hd, n int, scale float32, out *float32)

//go:noescape
func scoresTailHalfAVX512(q *float32, k *uint16, stride, hd, n int, scale float32, out *float32)

//go:noescape
func accumulateHalfAVX512(a *float32, v *uint16, stride, hd, n int, y *float32)

// halveRow stores src in dst rounded to the nearest F16 values.
func halveRow(dst []uint16, src []float32) {
	if !avx512 {
		halveRowGo(dst, src)
		return
	}
	dst = dst[:len(src)]
	n := len(src) &^ 15
	if n > 0 {
		halveAVX512(&dst[0], &src[0], n)
	}
	if n < len(src) { // the last few through a block of sixteen
		var in [16]float32
		var out [16]uint16
		copy(in[:], src[n:])
		halveAVX512(&out[0], &in[0], 16)
		copy(dst[n:], out[:])
	}
}

// roundHalf rounds x's values to the nearest F16 values, kept as float32.
func roundHalf(x []float32) {
	if !avx512 {
		roundHalfGo(x)
		return
	}
	n := len(x) &^ 15
	if n > 0 {
		roundHalfAVX512(&x[0], n)
	}
	if n < len(x) { // the last few (a softmax's over 88 positions: 8) as a block of sixteen
		var b [16]float32
		copy(b[:], x[n:])
		roundHalfAVX512(&b[0], 16)
		copy(x[n:], b[:])
	}
}

// scoresStridedHalf is scoresStrided over F16 keys.
func scoresStridedHalf(q []float32, base []uint16, stride int, scale float32, out []float32) {
	n, hd := len(out), len(q)
	if n == 0 || hd == 0 {
		return
	}
	_ = base[(n-1)*stride+hd-1]
	if !avx512 || hd%16 != 0 {
		scoresStridedHalfGo(q, base, stride, scale, out)
		return
	}
	t := n &^ 15
	if t > 0 {
		scoresHalfAVX512(&q[0], &base[0], stride, hd, t, scale, &out[0])
	}
	if t < n {
		scoresTailHalfAVX512(&q[0], &base[t*stride], stride, hd, n-t, scale, &out[t])
	}
}

// accumulateStridedHalf is accumulateStrided over F16 values.
func accumulateStridedHalf(a []float32, v []uint16, stride int, y []float32) {
	n, hd := len(a), len(y)
	if n == 0 || hd == 0 {
		return
	}
	_ = v[(n-1)*stride+hd-1]
	if !avx512 || hd%16 != 0 {
		accumulateStridedHalfGo(a, v, stride, y)
		return
	}
	accumulateHalfAVX512(&a[0], &v[0], stride, hd, n, &y[0])
}
