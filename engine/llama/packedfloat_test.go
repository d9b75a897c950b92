package llama

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/half"
)

// floatTensor is a rows x cols tensor of random values in a float format.
func floatTensor(rng *rand.Rand, typ gguf.TensorType, rows, cols int) *gguf.Tensor {
	es := floatElemBytes(typ)
	data := make([]byte, rows*cols*es)
	for i := 0; i < rows*cols; i++ {
		v := float32(rng.NormFloat64())
		switch typ {
		case typeF16:
			binary.LittleEndian.PutUint16(data[2*i:], half.FromFloat32(v))
		case gguf.BF16:
			binary.LittleEndian.PutUint16(data[2*i:], uint16(math.Float32bits(v)>>16))
		default:
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
		}
	}
	return &gguf.Tensor{Name: "w", Type: typ, Dims: []uint64{uint64(cols), uint64(rows)}, Data: data}
}

// floatInputs are batch inputs of n values, consecutive in one buffer as
// a step's are.
func floatInputs(rng *rand.Rand, batch, n int) []vecInput {
	x := make([]float32, batch*n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	ins := make([]vecInput, batch)
	for b := range ins {
		ins[b].f = x[b*n : (b+1)*n]
	}
	return ins
}

// TestPackedFloatKernels: packed F32, F16 and BF16 matrices (the AVX-512
// kernels where the CPU has them, else their portable form) give each
// row's product with each input to within float32 rounding of a float64
// sum over the file's rows, for every batch size up to 30 (each width the
// kernels take, and mixes of them), and a row's product with an input is
// the same bits whatever the batch (batch 1 takes four units a call where
// it can: six units here, four so and two as the other batches).
func TestPackedFloatKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, typ := range []gguf.TensorType{gguf.F32, gguf.F16, gguf.BF16} {
		for _, cols := range []int{1, 3, 16, 288, 770} {
			t.Run(fmt.Sprintf("%s/%d", typ, cols), func(t *testing.T) {
				const rows = 6 * floatUnitRows
				tensor := floatTensor(rng, typ, rows, cols)
				packed := pack(typ, tensor.Data, rows, cols)
				m := &Matrix{Type: typ, Rows: rows, Cols: cols, packed: packed}
				row := make([]float32, cols)
				es := floatElemBytes(typ)
				alone := make([]float32, rows)
				for batch := 1; batch <= 30; batch++ {
					ins := floatInputs(rng, batch, cols)
					out := make([]float32, batch*rows)
					m.rowsPacked(out, ins, 0, rows/floatUnitRows)
					for r := range rows {
						for k := range row {
							row[k] = floatValue(typ, tensor.Data[(r*cols+k)*es:])
						}
						for b, in := range ins {
							var want, mag float64
							for k, w := range row {
								want += float64(w) * float64(in.f[k])
								mag += math.Abs(float64(w) * float64(in.f[k]))
							}
							got := out[b*rows+r]
							if math.Abs(float64(got)-want) > 1e-6*mag+1e-30 {
								t.Fatalf("batch %d, row %d, input %d: %g, want %g", batch, r, b, got, want)
							}
						}
					}
					// the last input alone gives the same bits
					last := ins[batch-1:]
					m.rowsPacked(alone, last, 0, rows/floatUnitRows)
					for r := range rows {
						if a, b := alone[r], out[(batch-1)*rows+r]; math.Float32bits(a) != math.Float32bits(b) {
							t.Fatalf("batch %d, row %d: %g in the batch, %g alone", batch, r, b, a)
						}
					}
				}
			})
		}
	}
}

// TestPackedFloatPortable: the portable kernel agrees with the one in use
// (the assembly where the CPU has it) to within float32 rounding, and
// takes inputs that are not in one buffer, which the assembly does not.
func TestPackedFloatPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, cols, batch = 32, 100, 12
	for _, typ := range []gguf.TensorType{gguf.F32, gguf.F16, gguf.BF16} {
		tensor := floatTensor(rng, typ, rows, cols)
		w := pack(typ, tensor.Data, rows, cols)
		ins := floatInputs(rng, batch, cols)
		got, want := make([]float32, batch*rows), make([]float32, batch*rows)
		floatP2(typ, w, ins, inOneBuffer(ins, cols), got, rows)
		floatP2Go(typ, w, ins, want, rows)
		for i := range got {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*math.Abs(float64(want[i]))+1e-5 {
				t.Fatalf("%s: value %d: %g, portable %g", typ, i, got[i], want[i])
			}
		}
		// the same inputs copied apart: the portable kernel computes them
		apart := make([]vecInput, batch)
		for b := range apart {
			apart[b].f = append(make([]float32, 0, cols+1), ins[b].f...)
		}
		if inOneBuffer(apart, cols) {
			t.Fatal("copied inputs found in one buffer")
		}
		floatP2(typ, w, apart, inOneBuffer(apart, cols), got, rows)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: inputs apart: value %d: %g, want %g", typ, i, got[i], want[i])
			}
		}
		// batch 1's kernel over four units against its portable form
		units := floatTensor(rng, typ, floatW1Units*floatUnitRows, cols)
		w4 := pack(typ, units.Data, floatW1Units*floatUnitRows, cols)
		got4, want4 := make([]float32, floatW1Units*floatUnitRows), make([]float32, floatW1Units*floatUnitRows)
		floatW1x4(typ, w4, ins[0].f, got4)
		floatW1x4Go(typ, w4, ins[0].f, want4)
		for i := range got4 {
			if d := math.Abs(float64(got4[i] - want4[i])); d > 1e-5*math.Abs(float64(want4[i]))+1e-5 {
				t.Fatalf("%s: batch 1, row %d: %g, portable %g", typ, i, got4[i], want4[i])
			}
		}
	}
}

// BenchmarkFloatProduct: the output heads of the 15m and 110m models
// (32,000 x 288 and x 768), and a slice of the first that stays in L2, in
// F32, F16 and BF16 against 1, 8 and 32 inputs, one thread, packed against the file's rows (the four-by-four
// kernel), so that both are measured in one run.
func BenchmarkFloatProduct(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	// 1,024 rows of 15m's (in L2: the kernels' own speed), and the output
	// heads of 15m (18 MB in F16, which a big L3 may hold) and of 110m (49
	// MB in F16: read from memory at batch 1, as a model's weights are)
	for _, shape := range []struct{ rows, cols int }{{1024, 288}, {32000, 288}, {32000, 768}} {
		for _, typ := range []gguf.TensorType{gguf.F32, gguf.F16, gguf.BF16} {
			rows, cols := shape.rows, shape.cols
			tensor := floatTensor(rng, typ, rows, cols)
			for _, packed := range []bool{true, false} {
				restore := SetPackingForTest(packed)
				m, err := newMatrix(tensor)
				restore()
				if err != nil {
					b.Fatal(err)
				}
				if packed && m.packed == nil {
					continue // no AVX-512 here
				}
				for _, batch := range []int{1, 8, 32} {
					ins := floatInputs(rng, batch, cols)
					out := make([]float32, batch*rows)
					b.Run(fmt.Sprintf("%dx%d/%s/packed=%v/batch=%d", rows, cols, typ, packed, batch), func(b *testing.B) {
						for b.Loop() {
							if m.packed != nil {
								m.rowsPacked(out, ins, 0, rows/floatUnitRows)
							} else {
								m.rowsBatch(out, ins, 0, rows)
							}
						}
						b.ReportMetric(2*float64(b.N)*float64(rows*cols*batch)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
					})
				}
			}
		}
	}
}
