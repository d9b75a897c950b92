package llama

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQ4PackedKernels: the packed kernels (VNNI assembly where the CPU
// has it, else their portable form) on repacked rows give what the
// portable Q4_0 dot product gives on the file's own layout.
func TestQ4PackedKernels(t *testing.T) {
	t.Logf("kernels: %s", Kernels())
	rng := rand.New(rand.NewPCG(7, 8))
	for _, cols := range []int{32, 96, 768, 2048} {
		const rows = 32
		w := make([]float32, rows*cols)
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		w[3] = 40 // a block whose scale is set by an outlier
		q := QuantizeQ4_0(nil, w)
		packed := packQ4(q, rows, cols)
		nb := cols / qk
		rowBytes := nb * q4Bytes

		ins := make([]vecInput, 4)
		for k := range ins {
			x := make([]float32, cols)
			for i := range x {
				x[i] = float32(rng.NormFloat64()) * float32(k+1)
			}
			if k == 2 {
				clear(x[:qk]) // a block of zeros: scale 0
			}
			ins[k].q8.quantize(x)
			ins[k].q8.scaleBias()
		}
		for g := 0; g < rows/q4GroupRows; g++ {
			wg := packed[g*nb*q4GroupBlock : (g+1)*nb*q4GroupBlock]
			var four [64]float32
			q4r16x4(wg, ins, four[:], 16)
			for k := range ins {
				var one, portable [16]float32
				q4r16x1(wg, &ins[k].q8, &one)
				q4r16x1Go(wg, &ins[k].q8, &portable)
				for r := 0; r < q4GroupRows; r++ {
					row := g*q4GroupRows + r
					want := dotQ4Go(q[row*rowBytes:(row+1)*rowBytes], &ins[k].q8)
					tol := 1e-5 * (1 + float64(abs32(want)))
					for name, got := range map[string]float32{"x4": four[16*k+r], "x1": one[r], "portable": portable[r]} {
						if math.Abs(float64(got-want)) > tol {
							t.Fatalf("cols %d row %d input %d: %s kernel %v, want %v", cols, row, k, name, got, want)
						}
					}
				}
			}
		}
	}
}
