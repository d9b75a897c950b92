//go:build !purego

package llama

import (
	"slices"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

//go:noescape
func dotF32AVX2(a, b *float32, n int) float32

//go:noescape
func dotF16AVX2(a *uint16, b *float32, n int) float32

//go:noescape
func maxF32AVX2(x *float32, n int) float32

//go:noescape
func dotQ8AVX2(w *byte, xq *int8, xd *float32, nb int) float32

//go:noescape
func dotQ4AVX2(w *byte, xq *int8, xd *float32, bias *int32, nb int) float32

//go:noescape
func axpyAVX2(a float32, x, y *float32, n int)

// axpy adds a*x to y.
func axpy(a float32, x, y []float32) {
	n := len(y) &^ 7
	if !simd || n == 0 {
		axpyGo(a, x, y)
		return
	}
	x = x[:len(y)]
	axpyAVX2(a, &x[0], &y[0], n)
	if n < len(y) {
		axpyGo(a, x[n:], y[n:])
	}
}

//go:noescape
func dot4F32AVX2(w, x *float32, stride, n int, out *[4]float32)

//go:noescape
func dot4Q8AVX2(w *byte, xq *[4]*int8, xd *[4]*float32, nb int, out *[4]float32)

//go:noescape
func dot4Q4AVX2(w *byte, xq *[4]*int8, xd *[4]*float32, bias *[4]*int32, nb int, out *[4]float32)

// simd reports whether the assembly kernels can run here (and are
// allowed: KernelsEnv).
var simd = allowedKernels >= capAVX2 && cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX

// Kernels names the dot-product implementation in use.
func Kernels() string {
	switch {
	case vnni:
		return "avx2+avx512-vnni"
	case avx512:
		return "avx2+avx512"
	case simd:
		return "avx2"
	}
	return "go"
}

// maxF32 is the largest of x (which must not be empty or hold NaN).
func maxF32(x []float32) float32 {
	n := len(x) &^ 31
	if !simd || n == 0 {
		return maxF32Go(x)
	}
	m := maxF32AVX2(&x[0], n)
	if n < len(x) {
		m = max(m, maxF32Go(x[n:]))
	}
	return m
}

func dotF32(a, b []float32) float32 {
	n := len(a) &^ 31
	if !simd || n == 0 {
		return dotF32Go(a, b)
	}
	b = b[:len(a)]
	s := dotF32AVX2(&a[0], &b[0], n)
	if n < len(a) {
		s += dotF32Go(a[n:], b[n:])
	}
	return s
}

func dotF16(a []uint16, b []float32) float32 {
	n := len(a) &^ 31
	if !simd || n == 0 {
		return dotF16Go(a, b)
	}
	b = b[:len(a)]
	s := dotF16AVX2(&a[0], &b[0], n)
	if n < len(a) {
		s += dotF16Go(a[n:], b[n:])
	}
	return s
}

func dotQ8(row []byte, x *q8Vec) float32 {
	nb := len(x.d)
	if !simd || nb == 0 {
		return dotQ8Go(row, x)
	}
	_ = row[nb*q8Bytes-1]
	return dotQ8AVX2(&row[0], &x.q[0], &x.d[0], nb)
}

func dotQ4(row []byte, x *q8Vec) float32 {
	nb := len(x.d)
	if !simd || nb == 0 {
		return dotQ4Go(row, x)
	}
	_ = row[nb*q4Bytes-1]
	return dotQ4AVX2(&row[0], &x.q[0], &x.d[0], &x.bias[0], nb)
}

// rowBatch4 computes row r of m against ins[0:4] at once when the
// assembly kernels can, reporting whether it did.
func (m *Matrix) rowBatch4(out *[4]float32, r int, ins []vecInput) bool {
	if !simd {
		return false
	}
	n := m.Cols
	switch m.Type {
	case typeF32, typeF16, gguf.BF16:
		if m.Type == typeF16 || n%8 != 0 {
			return false
		}
		// the four inputs are consecutive rows of one activation buffer
		// (BF16's: the activations rounded, side by side in the scratch)
		f0 := ins[0].f
		stride := n
		for k := 1; k < 4; k++ {
			if len(ins[k].f) != n || unsafe.Pointer(&ins[k].f[0]) != unsafe.Add(unsafe.Pointer(&f0[0]), 4*k*stride) {
				return false
			}
		}
		if m.Type == gguf.BF16 {
			dot4BF16AVX2(&m.q[r*m.rowBytes], &f0[0], stride, n, out)
		} else {
			dot4F32AVX2(&m.f32[r*n], &f0[0], stride, n, out)
		}
		return true
	case gguf.Q4_K:
		if m.format != &q4KPacked {
			return false
		}
		in := kInputs(ins)
		dot4Q4KPackedAVX2(&m.q[r*m.rowBytes], &in, n/qkK, out)
		return true
	case gguf.Q5_K:
		if m.format != &q5KPacked {
			return false
		}
		in := kInputs(ins)
		dot4Q5KPackedAVX2(&m.q[r*m.rowBytes], &in, n/qkK, out)
		return true
	case gguf.Q2_K:
		in := kInputs(ins)
		dot4Q2KAVX2(&m.q[r*m.rowBytes], &in, n/qkK, out)
		return true
	case gguf.Q3_K:
		if m.format != &q3KPacked {
			return false
		}
		in := kInputs(ins)
		dot4Q3KPackedAVX2(&m.q[r*m.rowBytes], &in, n/qkK, out)
		return true
	case gguf.Q6_K:
		in := kInputs(ins)
		dot4Q6KAVX2(&m.q[r*m.rowBytes], &in, n/qkK, out)
		return true
	case gguf.Q5_0, gguf.Q5_1, gguf.Q4_1:
		var in [4]qInput
		for k := range in {
			x := &ins[k].q8
			in[k] = qInput{&x.q[0], &x.d[0], unsafe.Pointer(&x.bias[0])}
			if m.Type != gguf.Q5_0 { // the formats with a min take the block sums
				in[k].extra = unsafe.Pointer(&x.s[0])
			}
		}
		switch w := &m.q[r*m.rowBytes]; m.Type {
		case gguf.Q5_0:
			dot4Q5_0AVX2(w, &in, n/qk, out)
		case gguf.Q5_1:
			dot4Q5_1AVX2(w, &in, n/qk, out)
		default:
			dot4Q4_1AVX2(w, &in, n/qk, out)
		}
		return true
	case typeQ8_0, typeQ4_0:
		var xq [4]*int8
		var xd [4]*float32
		for k := 0; k < 4; k++ {
			xq[k], xd[k] = &ins[k].q8.q[0], &ins[k].q8.d[0]
		}
		if m.Type == typeQ4_0 {
			var bias [4]*int32
			for k := 0; k < 4; k++ {
				bias[k] = &ins[k].q8.bias[0]
			}
			dot4Q4AVX2(&m.q[r*m.rowBytes], &xq, &xd, &bias, n/qk, out)
			return true
		}
		dot4Q8AVX2(&m.q[r*m.rowBytes], &xq, &xd, n/qk, out)
		return true
	}
	return false
}

//go:noescape
func scoresAVX2(q, k *float32, stride, hd, n int, scale float32, out *float32)

// scoresStrided sets out[t] = scale * q · base[t*stride : t*stride+len(q)]
// for t < len(out): a head's attention scores over a block of cached
// keys, in one call.
func scoresStrided(q, base []float32, stride int, scale float32, out []float32) {
	n, hd := len(out), len(q)
	if n == 0 || hd == 0 {
		return
	}
	_ = base[(n-1)*stride+hd-1]
	t := 0
	if avx512 && hd%16 == 0 {
		if t = n &^ 15; t > 0 {
			scoresAVX512(&q[0], &base[0], stride, hd, t, scale, &out[0])
		}
		// the last keys (up to 15 a head, an entry and a layer) one at a
		// time, still sixteen lanes: four at a time and then one by one
		// in Go they were 1% of a served batch of 32's CPU; scores over
		// every remainder of 16 are 10% faster so
		if t < n {
			scoresTailAVX512(&q[0], &base[t*stride], stride, hd, n-t, scale, &out[t])
		}
		return
	}
	if simd && hd%8 == 0 {
		if e := n &^ 3; e > t {
			scoresAVX2(&q[0], &base[t*stride], stride, hd, e-t, scale, &out[t])
			t = e
		}
	}
	if t < n {
		scoresStridedGo(q, base[t*stride:], stride, scale, out[t:])
	}
}

//go:noescape
func scoresAVX512(q, k *float32, stride, hd, n int, scale float32, out *float32)

//go:noescape
func scoresTailAVX512(q, k *float32, stride, hd, n int, scale float32, out *float32)

//go:noescape
func accumulateAVX512(a, v *float32, stride, hd, n int, y *float32)

//go:noescape
func accumulateAVX2(a, v *float32, stride, hd, n int, y *float32)

// accumulateStrided adds a[t] * v[t*stride : t*stride+len(y)] to y for
// t < len(a): a head's output over a block of cached values, in one call.
func accumulateStrided(a, v []float32, stride int, y []float32) {
	n, hd := len(a), len(y)
	if n == 0 || hd == 0 {
		return
	}
	_ = v[(n-1)*stride+hd-1]
	if avx512 && hd%16 == 0 {
		accumulateAVX512(&a[0], &v[0], stride, hd, n, &y[0])
		return
	}
	t := 0
	if simd && hd%8 == 0 {
		if t = n &^ 3; t > 0 {
			accumulateAVX2(&a[0], &v[0], stride, hd, t, &y[0])
		}
	}
	if t < n {
		accumulateStridedGo(a[t:], v[t*stride:], stride, y)
	}
}

//go:noescape
func q4r16x4VNNI(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)

//go:noescape
func q4r16x1VNNI(w *byte, xq *int8, xsb *uint32, nb int, out *float32)

//go:noescape
func q8r16x4VNNI(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)

//go:noescape
func q8r16x1VNNI(w *byte, xq *int8, xsb *uint32, nb int, out *float32)

//go:noescape
func q5r16x4VNNI(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)

//go:noescape
func q5r16x1VNNI(w *byte, xq *int8, xsb *uint32, nb int, out *float32)

// avx512 reports whether the 512-bit kernels can run here, vnni whether
// the packed quantized ones can, packFloats whether float matrices are
// packed (packedfloat.go), and packAVX2 whether Q4_0 and Q8_0 matrices
// are packed for the AVX2 kernels where the VNNI ones cannot run
// (packedavx2_amd64.s).
var (
	avx512     = simd && allowedKernels >= capAVX512 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
	vnni       = avx512 && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512BW
	packFloats = avx512
	packAVX2   = simd
)

//go:noescape
func q4r16x4AVX2(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)

//go:noescape
func q4r16x1AVX2(w *byte, xq *int8, xsb *uint32, nb int, out *float32)

//go:noescape
func q8r16x4AVX2(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)

//go:noescape
func q8r16x1AVX2(w *byte, xq *int8, xsb *uint32, nb int, out *float32)

// packedByAVX2 reports whether the AVX2 kernels take packed matrices of
// typ here.
func packedByAVX2(typ gguf.TensorType) bool {
	return !vnni && packAVX2 && (typ == typeQ4_0 || typ == typeQ8_0)
}

//go:noescape
func f32r4x4AVX512(w *float32, wstride int, x *float32, xstride int, n int, out *[16]float32)

//go:noescape
func f16r4x4AVX512(w *uint16, wstride int, x *float32, xstride int, n int, out *[16]float32)

//go:noescape
func bf16r4x4AVX512(w *byte, wstride int, x *float32, xstride int, n int, out *[16]float32)

// tile4x4 computes F32, F16 or BF16 rows [lo, done) against the inputs in fours,
// four rows and four inputs a kernel call, and returns done: lo where it
// cannot (another format, no AVX-512, inputs not in one buffer).
func (m *Matrix) tile4x4(out []float32, ins []vecInput, first, lo, hi int) (done int) {
	n, rows, quads := m.Cols, m.Rows, len(ins)/4
	if !avx512 || (m.Type != typeF32 && m.Type != typeF16 && m.Type != gguf.BF16) || quads == 0 || n%16 != 0 {
		return lo
	}
	if !inOneBuffer(ins[:4*quads], n) {
		return lo
	}
	var o16 [16]float32
	r := lo
	for ; r+4 <= hi; r += 4 {
		for b := 0; b < 4*quads; b += 4 {
			switch m.Type {
			case typeF16:
				_ = m.f16[(r+4)*n-1]
				f16r4x4AVX512(&m.f16[r*n], n, &ins[b].f[0], n, n, &o16)
			case gguf.BF16:
				_ = m.q[(r+4)*m.rowBytes-1]
				bf16r4x4AVX512(&m.q[r*m.rowBytes], n, &ins[b].f[0], n, n, &o16)
			default:
				_ = m.f32[(r+4)*n-1]
				f32r4x4AVX512(&m.f32[r*n], n, &ins[b].f[0], n, n, &o16)
			}
			for k := 0; k < 4; k++ { // o[4i+k] is row r+i against input b+k
				o := out[(first+b+k)*rows+r:][:4]
				o[0], o[1], o[2], o[3] = o16[k], o16[4+k], o16[8+k], o16[12+k]
			}
		}
	}
	return r
}

// floatP2 computes two packed float groups (w: 32 rows, packedfloat.go)
// against ins: out[j*ostride+r] = row r · ins[j]. inOne says the inputs
// are in one buffer (inOneBuffer), as the assembly reads them.
func floatP2(typ gguf.TensorType, w []byte, ins []vecInput, inOne bool, out []float32, ostride int) {
	n, width := len(ins[0].f), len(ins)
	if !avx512 || !inOne || n == 0 || !slices.Contains(floatWidths[:], width) {
		floatP2Go(typ, w, ins, out, ostride)
		return
	}
	_ = out[(width-1)*ostride+floatUnitRows-1]
	_ = w[floatUnitRows*n*floatElemBytes(typ)-1]
	x, o := &ins[0].f[0], &out[0]
	switch typ {
	case typeF16:
		f16p2AVX512((*uint16)(unsafe.Pointer(&w[0])), n, x, o, ostride, width)
	case gguf.BF16:
		bf16p2AVX512((*uint16)(unsafe.Pointer(&w[0])), n, x, o, ostride, width)
	default:
		f32p2AVX512((*float32)(unsafe.Pointer(&w[0])), n, x, o, ostride, width)
	}
}

// floatW1x4 is floatP2 at width 1 over floatW1Units units (w) at once:
// out[r] = row r · x for the units' rows, the same bits as floatP2 gives.
func floatW1x4(typ gguf.TensorType, w []byte, x []float32, out []float32) {
	n := len(x)
	if !avx512 || n == 0 {
		floatW1x4Go(typ, w, x, out)
		return
	}
	_ = out[floatW1Units*floatUnitRows-1]
	_ = w[floatW1Units*floatUnitRows*n*floatElemBytes(typ)-1]
	switch typ {
	case typeF16:
		f16w1x4AVX512((*uint16)(unsafe.Pointer(&w[0])), n, &x[0], &out[0])
	case gguf.BF16:
		bf16w1x4AVX512((*uint16)(unsafe.Pointer(&w[0])), n, &x[0], &out[0])
	default:
		f32w1x4AVX512((*float32)(unsafe.Pointer(&w[0])), n, &x[0], &out[0])
	}
}

//go:noescape
func f32w1x4AVX512(w *float32, n int, x *float32, out *float32)

//go:noescape
func f16w1x4AVX512(w *uint16, n int, x *float32, out *float32)

//go:noescape
func bf16w1x4AVX512(w *uint16, n int, x *float32, out *float32)

//go:noescape
func f32p2AVX512(w *float32, n int, x *float32, out *float32, ostride int, width int)

//go:noescape
func f16p2AVX512(w *uint16, n int, x *float32, out *float32, ostride int, width int)

//go:noescape
func bf16p2AVX512(w *uint16, n int, x *float32, out *float32, ostride int, width int)

// q4r16x4 computes a packed Q4_0 group of 16 rows against four inputs:
// out[k*stride+r] = row r · ins[k].
func q4r16x4(w []byte, ins []vecInput, out []float32, stride int) {
	r16x4(w, typeQ4_0, ins, out, stride)
}

// q8r16x4 is q4r16x4 for packed Q8_0.
func q8r16x4(w []byte, ins []vecInput, out []float32, stride int) {
	r16x4(w, typeQ8_0, ins, out, stride)
}

// q5r16x4 is q4r16x4 for packed Q5_0.
func q5r16x4(w []byte, ins []vecInput, out []float32, stride int) {
	r16x4(w, gguf.Q5_0, ins, out, stride)
}

// r16x4 runs the four-input kernel of a packed group's format. The
// assembly is called directly, never through a function value, which
// would move the pointer arrays to the heap on every call.
func r16x4(w []byte, typ gguf.TensorType, ins []vecInput, out []float32, stride int) {
	_ = out[3*stride+q4GroupRows-1]
	avx2 := packedByAVX2(typ)
	if !vnni && !avx2 {
		for k := range 4 {
			r16x1Go(w, typ, &ins[k].q8, (*[16]float32)(out[k*stride:]))
		}
		return
	}
	nb := len(ins[0].q8.d)
	block, _ := packedBlock(typ)
	_ = w[nb*block-1]
	var xq [4]*int8
	var xsb [4]*uint32
	for k := range 4 {
		x := &ins[k].q8
		_, _ = x.q[nb*qk-1], x.sb[2*nb-1]
		xq[k], xsb[k] = &x.q[0], &x.sb[0]
	}
	switch {
	case avx2 && typ == typeQ8_0:
		q8r16x4AVX2(&w[0], &xq, &xsb, nb, &out[0], 4*stride)
	case avx2:
		q4r16x4AVX2(&w[0], &xq, &xsb, nb, &out[0], 4*stride)
	case typ == typeQ8_0:
		q8r16x4VNNI(&w[0], &xq, &xsb, nb, &out[0], 4*stride)
	case typ == gguf.Q5_0:
		q5r16x4VNNI(&w[0], &xq, &xsb, nb, &out[0], 4*stride)
	default:
		q4r16x4VNNI(&w[0], &xq, &xsb, nb, &out[0], 4*stride)
	}
}

// q4r16x1 computes a packed Q4_0 group of 16 rows against one input.
func q4r16x1(w []byte, x *q8Vec, out *[16]float32) { r16x1(w, typeQ4_0, x, out) }

// q8r16x1 is q4r16x1 for packed Q8_0.
func q8r16x1(w []byte, x *q8Vec, out *[16]float32) { r16x1(w, typeQ8_0, x, out) }

// q5r16x1 is q4r16x1 for packed Q5_0.
func q5r16x1(w []byte, x *q8Vec, out *[16]float32) { r16x1(w, gguf.Q5_0, x, out) }

// r16x1 runs the one-input kernel of a packed group's format, calling the
// assembly directly (see r16x4).
func r16x1(w []byte, typ gguf.TensorType, x *q8Vec, out *[16]float32) {
	avx2 := packedByAVX2(typ)
	if !vnni && !avx2 {
		r16x1Go(w, typ, x, out)
		return
	}
	nb := len(x.d)
	block, _ := packedBlock(typ)
	_, _, _ = w[nb*block-1], x.q[nb*qk-1], x.sb[2*nb-1]
	switch {
	case avx2 && typ == typeQ8_0:
		q8r16x1AVX2(&w[0], &x.q[0], &x.sb[0], nb, &out[0])
		return
	case avx2:
		q4r16x1AVX2(&w[0], &x.q[0], &x.sb[0], nb, &out[0])
		return
	}
	switch typ {
	case typeQ8_0:
		q8r16x1VNNI(&w[0], &x.q[0], &x.sb[0], nb, &out[0])
	case gguf.Q5_0:
		q5r16x1VNNI(&w[0], &x.q[0], &x.sb[0], nb, &out[0])
	default:
		q4r16x1VNNI(&w[0], &x.q[0], &x.sb[0], nb, &out[0])
	}
}

//go:noescape
func quantizeQ8AVX2(x *float32, q *int8, d *float32, bias *int32, nb int)

// quantizeBlocks fills v from x block by block, as quantizeGo does.
func (v *q8Vec) quantizeBlocks(x []float32) {
	nb := len(v.d)
	if !simd || nb == 0 {
		v.quantizeGo(x)
		return
	}
	_, _, _ = x[nb*qk-1], v.q[nb*qk-1], v.bias[nb-1]
	quantizeQ8AVX2(&x[0], &v.q[0], &v.d[0], &v.bias[0], nb)
}

//go:noescape
func siluMulAVX2(gate, up *float32, n int)

// siluMul sets gate[j] = SiLU(gate[j]) * up[j] (SwiGLU).
func siluMul(gate, up []float32) {
	n := 0
	if simd {
		n = len(gate) &^ 7
	}
	if n > 0 {
		_ = up[len(gate)-1]
		siluMulAVX2(&gate[0], &up[0], n)
	}
	siluMulGo(gate[n:], up[n:])
}

//go:noescape
func dotQ6KAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32

//go:noescape
func dotQ4KPackedAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32

//go:noescape
func dotQ5KPackedAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32

//go:noescape
func dot4Q5KPackedAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)

//go:noescape
func dotQ2KAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32

//go:noescape
func dot4Q2KAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)

//go:noescape
func dotQ3KPackedAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32

//go:noescape
func dot4Q3KPackedAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)

// kInput is one Q8_K input as the four-input kernels take it (the packed
// Q4_K kernels take its 32-value sums for bsums).
type kInput struct {
	q     *int8
	d     *float32
	bsums *int16
}

//go:noescape
func dot4Q4KPackedAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)

//go:noescape
func dot4Q6KAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)

// qInput is one Q8_0 or Q8_1 input as the four-input 32-value-block
// kernels take it: extra is its block biases (Q5_0) or block sums (Q4_1,
// Q5_1).
type qInput struct {
	q     *int8
	d     *float32
	extra unsafe.Pointer
}

//go:noescape
func dot4Q5_0AVX2(w *byte, in *[4]qInput, nb int, out *[4]float32)

//go:noescape
func dotQ5_1AVX2(w *byte, xq *int8, xd *float32, xs *float32, nb int) float32

//go:noescape
func dotQ4_1AVX2(w *byte, xq *int8, xd *float32, xs *float32, nb int) float32

//go:noescape
func dot4Q5_1AVX2(w *byte, in *[4]qInput, nb int, out *[4]float32)

//go:noescape
func dot4Q4_1AVX2(w *byte, in *[4]qInput, nb int, out *[4]float32)

// kInputs are four inputs' Q8_K vectors as the four-input kernels take
// them.
func kInputs(ins []vecInput) (in [4]kInput) {
	for k := range in {
		x := &ins[k].q8k
		in[k] = kInput{&x.q[0], &x.d[0], &x.bsums[0]}
	}
	return in
}

// dot is a K-quant row's product with a Q8_K input in assembly: Q3_K,
// Q4_K and Q5_K (repacked at load where this runs), Q2_K and Q6_K.
func (k kFormat) dot(row []byte, x *q8kVec) float32 {
	nb := len(x.d)
	if !simd || nb == 0 {
		return k.dotGo(row, x)
	}
	_ = row[nb*k.bytes-1]
	switch k.bytes {
	case q6KBytes:
		return dotQ6KAVX2(&row[0], &x.q[0], &x.d[0], &x.bsums[0], nb)
	case q4KPackedBytes:
		return dotQ4KPackedAVX2(&row[0], &x.q[0], &x.d[0], &x.bsums[0], nb)
	case q5KPackedBytes:
		return dotQ5KPackedAVX2(&row[0], &x.q[0], &x.d[0], &x.bsums[0], nb)
	case q3KPackedBytes:
		return dotQ3KPackedAVX2(&row[0], &x.q[0], &x.d[0], &x.bsums[0], nb)
	case q2KBytes:
		return dotQ2KAVX2(&row[0], &x.q[0], &x.d[0], &x.bsums[0], nb)
	}
	return k.dotGo(row, x)
}

//go:noescape
func dotQ5_0AVX2(w *byte, xq *int8, xd *float32, bias *int32, nb int) float32

// dot is a 32-value-block row's product with a Q8_0 or Q8_1 input, in
// assembly: Q5_0 (which llama-quantize's Q4_K_M puts in rows not a
// multiple of 256), Q5_1 (Q5_K_M's in such rows) and Q4_1.
func (f block32) dot(row []byte, x *q8Vec) float32 {
	nb := len(x.d)
	if !simd || nb == 0 {
		return f.dotGo(row, x)
	}
	_ = row[nb*f.bytes-1]
	switch f.bytes {
	case q5_0Bytes:
		return dotQ5_0AVX2(&row[0], &x.q[0], &x.d[0], &x.bias[0], nb)
	case q5_1Bytes:
		return dotQ5_1AVX2(&row[0], &x.q[0], &x.d[0], &x.s[0], nb)
	case q4_1Bytes:
		return dotQ4_1AVX2(&row[0], &x.q[0], &x.d[0], &x.s[0], nb)
	}
	return f.dotGo(row, x)
}

//go:noescape
func dotBF16AVX2(a *byte, b *float32, n int) float32

//go:noescape
func dot4BF16AVX2(w *byte, x *float32, stride, n int, out *[4]float32)

// dotBF16 is a BF16 row's product with an input rounded to bfloat16.
func dotBF16(row []byte, x []float32) float32 {
	n := len(x) &^ 31
	if !simd || n == 0 {
		return dotBF16Go(row, x)
	}
	_ = row[2*len(x)-1]
	s := dotBF16AVX2(&row[0], &x[0], n)
	if n < len(x) {
		s += dotBF16Go(row[2*n:], x[n:])
	}
	return s
}

//go:noescape
func q4kr16x4VNNI(w *byte, in *[4]kInput, nb int, out *float32, ostride int)

//go:noescape
func q4kr16x1VNNI(w *byte, xq *int8, xd *float32, s32 *int16, nb int, out *float32)

// q4kr16x4 computes a packed Q4_K group of 16 rows against four inputs:
// out[k*stride+r] = row r · ins[k].
func q4kr16x4(w []byte, ins []vecInput, out []float32, stride int) {
	kr16x4(w, gguf.Q4_K, ins, out, stride)
}

// q6kr16x4 is q4kr16x4 for packed Q6_K.
func q6kr16x4(w []byte, ins []vecInput, out []float32, stride int) {
	kr16x4(w, gguf.Q6_K, ins, out, stride)
}

// kr16x4 runs the four-input kernel of a packed K-quant group, calling
// the assembly directly (see r16x4). Each input's third operand is its
// 32-value sums for Q4_K's mins, its 16-value sums for Q6_K's offset.
func kr16x4(w []byte, typ gguf.TensorType, ins []vecInput, out []float32, stride int) {
	_ = out[3*stride+q4GroupRows-1]
	avx2 := packedByAVX2(typ)
	if !vnni && !avx2 {
		for k := range 4 {
			x, o := &ins[k].q8k, (*[16]float32)(out[k*stride:])
			if typ == gguf.Q6_K {
				q6kr16x1Go(w, x, o)
			} else {
				q4kr16x1Go(w, x, o)
			}
		}
		return
	}
	nb := len(ins[0].q8k.d)
	block, _ := packedBlock(typ)
	_ = w[nb*block-1]
	var in [4]kInput
	for k := range in {
		x := &ins[k].q8k
		_, _, _ = x.q[nb*qkK-1], x.d[nb-1], x.bsums[16*nb-1]
		in[k] = kInput{&x.q[0], &x.d[0], &x.bsums[0]}
		if typ == gguf.Q4_K {
			_ = x.s32[8*nb-1]
			in[k].bsums = &x.s32[0]
		}
	}
	if typ == gguf.Q6_K {
		q6kr16x4VNNI(&w[0], &in, nb, &out[0], 4*stride)
	} else {
		q4kr16x4VNNI(&w[0], &in, nb, &out[0], 4*stride)
	}
}

// q4kr16x1 computes a packed Q4_K group of 16 rows against one input.
func q4kr16x1(w []byte, x *q8kVec, out *[16]float32) {
	if !vnni {
		q4kr16x1Go(w, x, out)
		return
	}
	nb := len(x.d)
	_, _, _, _ = w[nb*q4KGroupBlock-1], x.q[nb*qkK-1], x.d[nb-1], x.s32[8*nb-1]
	q4kr16x1VNNI(&w[0], &x.q[0], &x.d[0], &x.s32[0], nb, &out[0])
}

//go:noescape
func q6kr16x4VNNI(w *byte, in *[4]kInput, nb int, out *float32, ostride int)

//go:noescape
func q6kr16x1VNNI(w *byte, xq *int8, xd *float32, bsums *int16, nb int, out *float32)

// q6kr16x1 computes a packed Q6_K group of 16 rows against one input.
func q6kr16x1(w []byte, x *q8kVec, out *[16]float32) {
	if !vnni {
		q6kr16x1Go(w, x, out)
		return
	}
	nb := len(x.d)
	_, _, _, _ = w[nb*q6KGroupBlock-1], x.q[nb*qkK-1], x.d[nb-1], x.bsums[16*nb-1]
	q6kr16x1VNNI(&w[0], &x.q[0], &x.d[0], &x.bsums[0], nb, &out[0])
}
