//go:build !purego

package llama

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDot4 times the AVX2 kernels that take a row against four
// inputs (a prompt's products on machines without the packed VNNI
// kernels), a row of 2,048 values.
func BenchmarkDot4(b *testing.B) {
	if !simd {
		b.Skip("no AVX2")
	}
	const n = 2048
	r := rand.New(rand.NewPCG(1, 2))
	w := make([]float32, n)
	for i := range w {
		w[i] = r.Float32()*2 - 1
	}
	var xs [4]q8Vec
	var xq [4]*int8
	var xd [4]*float32
	for k := range xs {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		xs[k].quantize(v)
		xq[k], xd[k] = &xs[k].q[0], &xs[k].d[0]
	}
	q8, q4 := QuantizeQ8_0(nil, w), QuantizeQ4_0(nil, w)
	var out [4]float32
	b.Run("q8_0", func(b *testing.B) {
		for b.Loop() {
			dot4Q8AVX2(&q8[0], &xq, &xd, n/qk, &out)
		}
	})
	b.Run("q4_0", func(b *testing.B) {
		var bias [4]*int32
		for k := range xs {
			bias[k] = &xs[k].bias[0]
		}
		for b.Loop() {
			dot4Q4AVX2(&q4[0], &xq, &xd, &bias, n/qk, &out)
		}
	})
}
