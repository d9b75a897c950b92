package llama

import (
	"math"
	"testing"
	"time"
)

// TestProductProbe: the compute probe runs the engine's real products
// (each output is its row's product with its input, checked against a
// float64 sum over the matrix's own rows), and ProductGFLOPS turns them
// into a rate on one thread and on two.
func TestProductProbe(t *testing.T) {
	p, err := newProductProbe(7)
	if err != nil {
		t.Fatal(err)
	}
	p.run()
	for b, in := range p.ins {
		for r := 0; r < probeRows; r++ {
			var want, scale float64
			for k, x := range in.f {
				w := float64(p.w.f32[r*probeCols+k])
				want += w * float64(x)
				scale += math.Abs(w * float64(x))
			}
			if got := float64(p.out[b*probeRows+r]); math.Abs(got-want) > 1e-5*scale {
				t.Fatalf("input %d, row %d: %v, want %v", b, r, got, want)
			}
		}
	}
	for _, threads := range []int{1, 2} {
		g, err := ProductGFLOPS(threads, time.Millisecond)
		if err != nil || !(g > 0) || math.IsInf(g, 0) {
			t.Fatalf("%d threads: %v GFLOP/s, error %v", threads, g, err)
		}
	}
}
