//go:build !purego

package llama

import "golang.org/x/sys/cpu"

//go:noescape
func dotF32AVX2(a, b *float32, n int) float32

//go:noescape
func dotF16AVX2(a *uint16, b *float32, n int) float32

//go:noescape
func dotQ8AVX2(w *byte, xq *int8, xd *float32, nb int) float32

//go:noescape
func dotQ4AVX2(w *byte, xq *int8, xd *float32, nb int) float32

// simd reports whether the assembly kernels can run here.
var simd = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX

// Kernels names the dot-product implementation in use.
func Kernels() string {
	if simd {
		return "avx2"
	}
	return "go"
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
	return dotQ4AVX2(&row[0], &x.q[0], &x.d[0], nb)
}
