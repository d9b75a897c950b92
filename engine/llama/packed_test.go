package llama

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// TestPackedKernels: the packed kernels (VNNI assembly where the CPU has
// it, else their portable form) on repacked Q4_0 and Q8_0 rows give what
// the portable dot products give on the file's own layout.
func TestPackedKernels(t *testing.T) {
	t.Logf("kernels: %s", Kernels())
	rng := rand.New(rand.NewPCG(7, 8))
	type kernels struct {
		quantize func([]byte, []float32) []byte
		block    int
		x4       func([]byte, []vecInput, []float32, int)
		x1, go1  func([]byte, *q8Vec, *[16]float32)
		dot      func([]byte, *q8Vec) float32
	}
	for _, typ := range []gguf.TensorType{gguf.Q4_0, gguf.Q8_0} {
		k := kernels{QuantizeQ4_0, q4GroupBlock, q4r16x4, q4r16x1, q4r16x1Go, dotQ4Go}
		if typ == gguf.Q8_0 {
			k = kernels{QuantizeQ8_0, q8GroupBlock, q8r16x4, q8r16x1, q8r16x1Go, dotQ8Go}
		}
		for _, cols := range []int{32, 96, 768, 2048} {
			t.Run(fmt.Sprintf("%s/%d", typ, cols), func(t *testing.T) {
				const rows = 32
				w := make([]float32, rows*cols)
				for i := range w {
					w[i] = float32(rng.NormFloat64())
				}
				w[3] = 40 // a block whose scale is set by an outlier
				q := k.quantize(nil, w)
				packed := pack(typ, q, rows, cols)
				nb := cols / qk
				rowBytes := len(q) / rows
				ins := make([]vecInput, 4)
				for i := range ins {
					x := make([]float32, cols)
					for j := range x {
						x[j] = float32(rng.NormFloat64()) * float32(i+1)
					}
					if i == 2 {
						clear(x[:qk]) // a block of zeros: scale 0
					}
					ins[i].q8.quantize(x)
					ins[i].q8.scaleBias(packOffset(typ))
				}
				for g := 0; g < rows/q4GroupRows; g++ {
					wg := packed[g*nb*k.block : (g+1)*nb*k.block]
					var four [64]float32
					k.x4(wg, ins, four[:], 16)
					for i := range ins {
						var one, portable [16]float32
						k.x1(wg, &ins[i].q8, &one)
						k.go1(wg, &ins[i].q8, &portable)
						for r := 0; r < q4GroupRows; r++ {
							row := g*q4GroupRows + r
							want := k.dot(q[row*rowBytes:(row+1)*rowBytes], &ins[i].q8)
							tol := 1e-5 * (1 + float64(abs32(want)))
							for name, got := range map[string]float32{"x4": four[16*i+r], "x1": one[r], "portable": portable[r]} {
								if math.Abs(float64(got-want)) > tol {
									t.Fatalf("row %d input %d: %s kernel %v, want %v", row, i, name, got, want)
								}
							}
						}
					}
				}
			})
		}
	}
}

// BenchmarkPackedProduct: a packed Q4_0 matrix larger than the last-level
// cache (32,768 x 2,048, 37 MB) against 16 inputs, one thread, as a batch
// of 16 meets each matrix of a model: weights stream from memory once,
// inputs stay in cache.
func BenchmarkPackedProduct(b *testing.B) {
	if !vnni {
		b.Skip("no VNNI: matrices are not packed")
	}
	const rows, cols, batch = 32768, 2048, 16
	rng := rand.New(rand.NewPCG(1, 1))
	row := make([]float32, cols)
	var q []byte
	for range rows {
		for i := range row {
			row[i] = float32(rng.NormFloat64())
		}
		q = QuantizeQ4_0(q, row)
	}
	m := &Matrix{Type: typeQ4_0, Rows: rows, Cols: cols, q: q, rowBytes: cols / qk * q4Bytes, packed: pack(typeQ4_0, q, rows, cols)}
	ins := make([]vecInput, batch)
	for k := range ins {
		for i := range row {
			row[i] = float32(rng.NormFloat64())
		}
		ins[k].q8.quantize(row)
		ins[k].q8.scaleBias(packOffset(typeQ4_0))
	}
	out := make([]float32, batch*rows)
	b.ResetTimer()
	for b.Loop() {
		m.rowsPacked(out, ins, 0, rows/q4GroupRows)
	}
	b.ReportMetric(float64(b.N)*rows*cols*batch/b.Elapsed().Seconds()/1e9, "GMAC/s")
}
