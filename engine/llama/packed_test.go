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
	for _, typ := range []gguf.TensorType{gguf.Q4_0, gguf.Q8_0, gguf.Q5_0} {
		k := kernels{QuantizeQ4_0, q4GroupBlock, q4r16x4, q4r16x1, q4r16x1Go, dotQ4Go}
		switch typ {
		case gguf.Q8_0:
			k = kernels{QuantizeQ8_0, q8GroupBlock, q8r16x4, q8r16x1, q8r16x1Go, dotQ8Go}
		case gguf.Q5_0:
			k = kernels{quantizeQ5_0Test(rng), q5GroupBlock, q5r16x4, q5r16x1, q5r16x1Go, bQ5_0.dotGo}
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

// TestPackedKQuantKernels: the packed Q4_K and Q6_K kernels (VNNI
// assembly where the CPU has it, else their portable form) give what the
// portable dot product gives on the file's own layout, and so does a
// whole product over a packed matrix, as the forward pass runs it.
func TestPackedKQuantKernels(t *testing.T) {
	t.Logf("kernels: %s", Kernels())
	rng := rand.New(rand.NewPCG(9, 10))
	type kernels struct {
		block   int
		format  kFormat
		x4      func([]byte, []vecInput, []float32, int)
		x1, go1 func([]byte, *q8kVec, *[16]float32)
	}
	for _, typ := range []gguf.TensorType{gguf.Q4_K, gguf.Q6_K} {
		k := kernels{q4KGroupBlock, kQ4, q4kr16x4, q4kr16x1, q4kr16x1Go}
		if typ == gguf.Q6_K {
			k = kernels{q6KGroupBlock, kQ6, q6kr16x4, q6kr16x1, q6kr16x1Go}
		}
		for _, cols := range []int{256, 768, 2048} {
			t.Run(fmt.Sprintf("%s/%d", typ, cols), func(t *testing.T) {
				const rows = 32
				var q []byte
				for range rows {
					q = append(q, randomRow(rng, typ, cols)...)
				}
				packed := pack(typ, q, rows, cols)
				nb, rowBytes := cols/qkK, cols/qkK*k.format.bytes
				ins := make([]vecInput, 5)
				for i := range ins {
					x := make([]float32, cols)
					for j := range x {
						x[j] = float32(rng.NormFloat64()) * float32(i+1)
					}
					if i == 2 {
						clear(x[:qkK]) // a super-block of zeros: scale 0
					}
					x[7] = 30 // an outlier sets the first super-block's scale
					ins[i].q8k.quantize(x)
					ins[i].q8k.sums32()
				}
				want := func(row, i int) float32 { return k.format.dotGo(q[row*rowBytes:(row+1)*rowBytes], &ins[i].q8k) }
				// float32 sums of terms as large as mag, in another order
				// (Q6_K's signed scales cancel: results far smaller than
				// their terms)
				mag := make([][]float64, rows)
				w := make([]float32, cols)
				for row := range rows {
					k.format.decode(w, q[row*rowBytes:(row+1)*rowBytes])
					for i := range ins {
						xs, m := dequantized(&ins[i], formQ8K, cols), 0.0
						for j := range w {
							m += math.Abs(float64(w[j] * xs[j]))
						}
						mag[row] = append(mag[row], m)
					}
				}
				near := func(got float32, row, i int) bool {
					return math.Abs(float64(got-want(row, i))) <= 1e-6*(1+mag[row][i])
				}
				for g := 0; g < rows/q4GroupRows; g++ {
					wg := packed[g*nb*k.block : (g+1)*nb*k.block]
					var four [64]float32
					k.x4(wg, ins[:4], four[:], 16)
					for i := range 4 {
						var one, portable [16]float32
						k.x1(wg, &ins[i].q8k, &one)
						k.go1(wg, &ins[i].q8k, &portable)
						for r := range q4GroupRows {
							row := g*q4GroupRows + r
							for name, got := range map[string]float32{"x4": four[16*i+r], "x1": one[r], "portable": portable[r]} {
								if !near(got, row, i) {
									t.Fatalf("row %d input %d: %s kernel %v, want %v", row, i, name, got, want(row, i))
								}
							}
						}
					}
				}
				m := &Matrix{Type: typ, Rows: rows, Cols: cols, q: q, rowBytes: rowBytes, packed: packed}
				out := make([]float32, len(ins)*rows)
				m.rowsPacked(out, ins, 0, rows/q4GroupRows)
				for i := range ins {
					for row := range rows {
						if got := out[i*rows+row]; !near(got, row, i) {
							t.Fatalf("product: row %d input %d: %v, want %v", row, i, got, want(row, i))
						}
					}
				}
			})
		}
	}
}

// quantizeQ5_0Test makes Q5_0 rows of x's length with random quants and
// fifth bits (the engine has no Q5_0 quantizer: llama-quantize writes them).
func quantizeQ5_0Test(rng *rand.Rand) func([]byte, []float32) []byte {
	return func(dst []byte, x []float32) []byte {
		return append(dst, randomRow(rng, gguf.Q5_0, len(x))...)
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

// BenchmarkQ4KProduct: a Q4_K matrix (8,192 x 2,048, 9.4 MB) against 16
// inputs (a prompt's slice) and against one (decoding), one thread:
// packed for the VNNI kernels against the AVX2 kernels on the file's
// rows, so that the packing's gain is measured in one run.
func BenchmarkQ4KProduct(b *testing.B) {
	const rows, cols = 8192, 2048
	rng := rand.New(rand.NewPCG(1, 1))
	var q []byte
	for range rows {
		q = append(q, randomRow(rng, gguf.Q4_K, cols)...)
	}
	for _, packed := range []bool{true, false} {
		restore := SetPackingForTest(packed)
		m, err := newMatrix(&gguf.Tensor{Name: "w", Dims: []uint64{cols, rows}, Type: gguf.Q4_K, Data: q})
		restore()
		if err != nil {
			b.Fatal(err)
		}
		if packed && m.packed == nil {
			continue // no VNNI here
		}
		for _, batch := range []int{16, 1} {
			ins := make([]vecInput, batch)
			for k := range ins {
				x := make([]float32, cols)
				for i := range x {
					x[i] = float32(rng.NormFloat64())
				}
				ins[k].prepare(x, inputForm(m), nil)
			}
			out := make([]float32, batch*rows)
			b.Run(fmt.Sprintf("packed=%v/batch=%d", packed, batch), func(b *testing.B) {
				for b.Loop() {
					if m.packed != nil {
						m.rowsPacked(out, ins, 0, rows/q4GroupRows)
					} else {
						m.rowsBatch(out, ins, 0, rows)
					}
				}
				b.ReportMetric(float64(b.N)*rows*cols*float64(batch)/b.Elapsed().Seconds()/1e9, "GMAC/s")
			})
		}
	}
}

// TestPackedQ4ExtremeSums: the packed Q4_0 kernels at their integer
// bounds, every nibble 0 or 15 against quants of +-127 (the AVX2 ones
// add a block's products in 16 bits, whose bound this is: 8 x 2 x 15 x
// 127 = 30,480), give the exact sums on every path.
func TestPackedQ4ExtremeSums(t *testing.T) {
	const rows, cols = 16, 64
	for _, c := range []struct {
		nibble byte
		x      float32
	}{{15, 1}, {15, -1}, {0, 1}, {0, -1}} {
		// scale 1 (f16 0x3c00), every nibble c.nibble: each weight c.nibble-8
		row := make([]byte, 0, cols/qk*q4Bytes)
		for range cols / qk {
			row = append(row, 0x00, 0x3c)
			for range qk / 2 {
				row = append(row, c.nibble|c.nibble<<4)
			}
		}
		var q []byte
		for range rows {
			q = append(q, row...)
		}
		packed := pack(typeQ4_0, q, rows, cols)
		x := make([]float32, cols)
		for i := range x {
			x[i] = c.x
		}
		ins := make([]vecInput, 4)
		for i := range ins {
			ins[i].prepare(x, formPackedQ4, nil)
		}
		// quants of +-127 at scale 1/127 (rounded to f16)
		want := float32(int(c.nibble)-8) * float32(127*cols) * ins[0].q8.d[0] * float32(c.x)
		var four [64]float32
		q4r16x4(packed, ins, four[:], 16)
		var one [16]float32
		q4r16x1(packed, &ins[0].q8, &one)
		for r := range rows {
			for k := range 4 {
				if got := four[16*k+r]; math.Abs(float64(got-want)) > 1e-5*math.Abs(float64(want)) {
					t.Fatalf("nibbles %d, x %v: four-input kernel row %d input %d: %v, want %v", c.nibble, c.x, r, k, got, want)
				}
			}
			if math.Abs(float64(one[r]-want)) > 1e-5*math.Abs(float64(want)) {
				t.Fatalf("nibbles %d, x %v: one-input kernel row %d: %v, want %v", c.nibble, c.x, r, one[r], want)
			}
		}
	}
}

// TestPackedQ8ExtremeSums: the packed Q8_0 kernels at their integer
// bounds, weights of +-127 and -128 against quants of +-127 (the AVX2
// ones take two products in 16 bits: 2 x 128 x 127 = 32,512 fits).
func TestPackedQ8ExtremeSums(t *testing.T) {
	const rows, cols = 16, 64
	for _, c := range []struct {
		w int8
		x float32
	}{{127, 1}, {127, -1}, {-127, 1}, {-128, 1}, {-128, -1}} {
		row := make([]byte, 0, cols/qk*q8Bytes)
		for range cols / qk {
			row = append(row, 0x00, 0x3c) // scale 1
			for range qk {
				row = append(row, byte(c.w))
			}
		}
		var q []byte
		for range rows {
			q = append(q, row...)
		}
		packed := pack(typeQ8_0, q, rows, cols)
		x := make([]float32, cols)
		for i := range x {
			x[i] = c.x
		}
		ins := make([]vecInput, 4)
		for i := range ins {
			ins[i].prepare(x, formPackedQ8, nil)
		}
		want := float32(c.w) * float32(127*cols) * ins[0].q8.d[0] * c.x
		var four [64]float32
		q8r16x4(packed, ins, four[:], 16)
		var one [16]float32
		q8r16x1(packed, &ins[0].q8, &one)
		for r := range rows {
			for k := range 4 {
				if got := four[16*k+r]; math.Abs(float64(got-want)) > 1e-5*math.Abs(float64(want)) {
					t.Fatalf("weights %d, x %v: four-input kernel row %d input %d: %v, want %v", c.w, c.x, r, k, got, want)
				}
			}
			if math.Abs(float64(one[r]-want)) > 1e-5*math.Abs(float64(want)) {
				t.Fatalf("weights %d, x %v: one-input kernel row %d: %v, want %v", c.w, c.x, r, one[r], want)
			}
		}
	}
}
