package llama

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tpsbench/tpsbench/engine/half"
)

// TestHalfCacheKernels checks the F16 cache's kernels against their
// portable loops, with AVX-512 and without: the conversions bit for bit
// (both round to nearest, ties to even), attention's sums to float32
// summation order. Rows are strided as a cache's are, in counts that take
// each path: sixteen keys at a time, the tail one at a time, both.
func TestHalfCacheKernels(t *testing.T) {
	for _, wide := range []bool{true, false} {
		t.Run(fmt.Sprintf("avx512-%v", wide), func(t *testing.T) {
			defer setAVX512ForTest(wide)()
			r := rand.New(rand.NewPCG(3, 4))
			for _, n := range []int{16, 48, 288, 100, 7} {
				src := make([]float32, n)
				for i := range src {
					src[i] = (r.Float32()*2 - 1) * float32(math.Pow(2, float64(r.IntN(40)-20)))
				}
				src[0] = 65520 // past F16's largest: infinity
				if n > 1 {
					src[1] = float32(half.ToFloat32(0x3c00)+half.ToFloat32(0x3c01)) / 2 // a tie: to even
				}
				got, want := make([]uint16, n), make([]uint16, n)
				halveRow(got, src)
				halveRowGo(want, src)
				for i := range got {
					if got[i] != want[i] || want[i] != half.FromFloat32(src[i]) {
						t.Fatalf("halveRow n=%d [%d] %v: %#x, portable %#x", n, i, src[i], got[i], want[i])
					}
				}
				rounded := append([]float32(nil), src...)
				roundHalf(rounded)
				for i, v := range rounded {
					if w := half.Table(half.FromFloat32(src[i])); v != w && !(math.IsNaN(float64(v)) && math.IsNaN(float64(w))) {
						t.Fatalf("roundHalf n=%d [%d] %v: %v, want %v", n, i, src[i], v, w)
					}
				}
			}
			for _, hd := range []int{16, 48, 64, 20} {
				stride := 3*hd + 16 // heads side by side in a row, as kvDim is
				q := make([]float32, hd)
				for i := range q {
					q[i] = r.Float32()*2 - 1
				}
				for _, rows := range []int{1, 5, 16, 33, 88} {
					cache := make([]uint16, rows*stride)
					for i := range cache {
						cache[i] = half.FromFloat32(r.Float32()*2 - 1)
					}
					s1, s2 := make([]float32, rows), make([]float32, rows)
					scoresStridedHalf(q, cache, stride, 0.3, s1)
					scoresStridedHalfGo(q, cache, stride, 0.3, s2)
					for i := range s1 {
						if d := math.Abs(float64(s1[i] - s2[i])); d > 1e-6*math.Sqrt(float64(hd)) {
							t.Fatalf("scores hd=%d rows=%d [%d]: %v, portable %v", hd, rows, i, s1[i], s2[i])
						}
					}
					y1, y2 := append([]float32(nil), q...), append([]float32(nil), q...)
					accumulateStridedHalf(s2, cache, stride, y1)
					accumulateStridedHalfGo(s2, cache, stride, y2)
					for i := range y1 {
						if d := math.Abs(float64(y1[i] - y2[i])); d > 1e-6*float64(rows) {
							t.Fatalf("accumulate hd=%d rows=%d [%d]: %v, portable %v", hd, rows, i, y1[i], y2[i])
						}
					}
				}
			}
		})
	}
}
