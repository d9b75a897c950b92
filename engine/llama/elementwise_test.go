package llama

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestElementwiseMatchesScalar holds the vector RoPE and norm parts to
// the scalar loops: RoPE and the norm's scaling bit for bit, the sum of
// squares (added in another order) to well inside a float32 unit, over
// lengths with and without a tail past the sixteen-value vectors.
func TestElementwiseMatchesScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	for _, n := range []int{1, 15, 16, 48, 100, 288, 768} {
		x, w := values(n), values(n)
		var want float64
		for _, v := range x {
			want += float64(v * v)
		}
		if got := sumSquares(x); math.Abs(got-want) > 1e-12*want {
			t.Errorf("sumSquares of %d values: %v, want %v", n, got, want)
		}
		got, ref := make([]float32, n), make([]float32, n)
		scaleMul(got, x, w, 0.37)
		scaleMulGo(ref, x, w, 0.37)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(ref[i]) {
				t.Fatalf("scaleMul of %d values: [%d] %v, want %v", n, i, got[i], ref[i])
			}
		}
	}
	for _, c := range []struct{ heads, hd, dims int }{{6, 48, 48}, {12, 64, 64}, {4, 128, 32}, {2, 64, 24}, {3, 40, 40}} {
		for _, neox := range []bool{false, true} {
			t.Run(fmt.Sprintf("rope/%dx%d/dims%d/neox=%v", c.heads, c.hd, c.dims, neox), func(t *testing.T) {
				cs := make([]float32, c.dims)
				for i := 0; i < c.dims; i += 2 {
					s, co := math.Sincos(r.Float64() * 2 * math.Pi)
					cs[i], cs[i+1] = float32(co), float32(s)
				}
				x := values(c.heads * c.hd)
				got, want := append([]float32(nil), x...), append([]float32(nil), x...)
				rope(got, c.heads, c.hd, cs, neox)
				ropeGo(want, c.heads, c.hd, cs, neox)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("[%d] %v, want %v", i, got[i], want[i])
					}
				}
				if c.dims < c.hd && got[c.hd-1] != x[c.hd-1] {
					t.Error("a value past the rotated dimensions moved")
				}
			})
		}
	}
}
