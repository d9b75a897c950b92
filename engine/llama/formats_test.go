package llama

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/half"
)

// randomRow is a row of n values of format typ with random quants and
// scales of a sane size (random bytes would make some f16 scales
// infinite).
func randomRow(r *rand.Rand, typ gguf.TensorType, n int) []byte {
	row := make([]byte, typ.RowBytes(n))
	for i := range row {
		row[i] = byte(r.Uint32())
	}
	scale := func(off int) {
		binary.LittleEndian.PutUint16(row[off:], half.FromFloat32((r.Float32()*2-1)*0.05))
	}
	bs := typ.RowBytes(typ.BlockSize())
	for b := 0; b < n/typ.BlockSize(); b++ {
		o := b * bs
		switch typ {
		case gguf.Q4_1, gguf.Q5_1, gguf.Q4_K, gguf.Q5_K:
			scale(o)
			scale(o + 2)
		case gguf.Q5_0:
			scale(o)
		case gguf.Q2_K:
			scale(o + 80)
			scale(o + 82)
		case gguf.Q3_K:
			scale(o + 108)
		case gguf.Q6_K:
			scale(o + 208)
		case gguf.BF16:
			for i := o; i < o+bs; i += 2 {
				binary.LittleEndian.PutUint16(row[i:], uint16(math.Float32bits(r.Float32()*2-1)>>16))
			}
		}
	}
	return row
}

// dequantized is what a prepared input stands for in float32.
func dequantized(in *vecInput, form, n int) []float32 {
	out := make([]float32, n)
	switch form {
	case formQ8K:
		for i := range out {
			out[i] = in.q8k.d[i/qkK] * float32(in.q8k.q[i])
		}
	case formBF16:
		copy(out, in.f)
	default:
		for i := range out {
			out[i] = in.q8.d[i/qk] * float32(in.q8.q[i])
		}
	}
	return out
}

// TestRowFormatsDotIsDecodeTimesInput checks each format's product against
// its decoded row times the decoded input, in float64: the integer
// shortcuts (mins through block sums, scales per sub-block) must compute
// the same sum. That the decoding itself is llama.cpp's is the
// conformance test's (engine/conformance_test.go).
func TestRowFormatsDotIsDecodeTimesInput(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var types []gguf.TensorType
	for typ := range rowFormats {
		types = append(types, typ)
	}
	slices.Sort(types) // the same data every run
	for _, typ := range types {
		f := rowFormats[typ]
		for _, n := range []int{256, 512, 2048} {
			row := randomRow(r, typ, n)
			x := make([]float32, n)
			for i := range x {
				x[i] = r.Float32()*2 - 1
			}
			var in vecInput
			in.prepare(x, f.form, make([]float32, n))
			w := make([]float32, n)
			f.decode(w, row)
			xs := dequantized(&in, f.form, n)
			want, mag := 0.0, 0.0
			for i := range w {
				want += float64(w[i]) * float64(xs[i])
				mag += math.Abs(float64(w[i]) * float64(xs[i]))
			}
			if f.form == formQ8_1 { // the min's term uses the block's f16 sum, which the decoded input lacks
				want = 0
				for b := 0; b < n/qk; b++ {
					var q [qk]int8
					var blk block32
					if typ == gguf.Q4_1 {
						blk = bQ4_1
					} else {
						blk = bQ5_1
					}
					d, m := blk.unpack(row[b*blk.bytes:], &q)
					for j := range q {
						want += float64(d) * float64(q[j]) * float64(xs[b*qk+j])
					}
					want += float64(m) * float64(in.q8.s[b])
				}
			}
			got := float64(f.dot(row, &in))
			if math.Abs(got-want) > 1e-5*mag+1e-6 {
				t.Errorf("%s n=%d: dot %v, decoded rows give %v", typ, n, got, want)
			}
		}
	}
}

// TestKQuantKernelsAgreeWithPortableLoops checks the K-quant and Q5_0
// kernels in use (assembly on amd64) against the portable loops: the integer sums
// are exact, the float sums differ in order only.
func TestKQuantKernelsAgreeWithPortableLoops(t *testing.T) {
	t.Logf("kernels: %s", Kernels())
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		typ gguf.TensorType
		k   kFormat
	}{{gguf.Q2_K, kQ2}, {gguf.Q3_K, kQ3}, {gguf.Q4_K, kQ4}, {gguf.Q5_K, kQ5}, {gguf.Q6_K, kQ6},
		{gguf.Q4_K, kQ4Packed}, {gguf.Q5_K, kQ5Packed}, {gguf.Q3_K, kQ3Packed}} {
		for _, n := range []int{256, 768, 2048} {
			row := randomRow(r, c.typ, n)
			if plainBytes := c.k.bytes - 4; c.k.bytes == q4KPackedBytes || c.k.bytes == q5KPackedBytes || c.k.bytes == q3KPackedBytes {
				// the same values, repacked
				plain, packed := make([]float32, n), make([]float32, n)
				map[int]kFormat{q4KBytes: kQ4, q5KBytes: kQ5, q3KBytes: kQ3}[plainBytes].decode(plain, row)
				if c.typ == gguf.Q3_K {
					row = repackQ3K(row)
				} else {
					row = repackK(row, plainBytes)
				}
				c.k.decode(packed, row)
				if !slices.Equal(plain, packed) {
					t.Fatalf("repacked %s decodes to other values", c.typ)
				}
			}
			x := make([]float32, n)
			for i := range x {
				x[i] = (r.Float32()*2 - 1) * 3
			}
			if n == 768 {
				clear(x[256:512]) // a block of zeros: its scale is 0
			}
			var in q8kVec
			in.quantize(x)
			got, want := c.k.dot(row, &in), c.k.dotGo(row, &in)
			if math.Abs(float64(got-want)) > 1e-5*(1+math.Abs(float64(want))) {
				t.Errorf("%s n=%d: %v, portable %v", c.typ, n, got, want)
			}
		}
	}
	for _, n := range []int{32, 256, 300, 2048} { // BF16: assembly and the portable loop
		row := randomRow(r, gguf.BF16, n)
		x := make([]float32, n)
		for i := range x {
			x[i] = roundBF16((r.Float32()*2 - 1) * 3)
		}
		got, want := dotBF16(row, x), dotBF16Go(row, x)
		if math.Abs(float64(got-want)) > 1e-5*(1+math.Abs(float64(want))) {
			t.Errorf("BF16 n=%d: %v, portable %v", n, got, want)
		}
	}
	for _, b := range []block32{bQ4_1, bQ5_0, bQ5_1} {
		for _, n := range []int{32, 288, 896} {
			typ := map[int]gguf.TensorType{20: gguf.Q4_1, 22: gguf.Q5_0, 24: gguf.Q5_1}[b.bytes]
			row := randomRow(r, typ, n)
			x := make([]float32, n)
			for i := range x {
				x[i] = (r.Float32()*2 - 1) * 3
			}
			var in q8Vec
			in.quantize(x)
			in.blockSums(x)
			got, want := b.dot(row, &in), b.dotGo(row, &in)
			if math.Abs(float64(got-want)) > 1e-5*(1+math.Abs(float64(want))) {
				t.Errorf("%s n=%d: %v, portable %v", typ, n, got, want)
			}
		}
	}
}

// TestRowFormatMatricesAgreeWithPortableLoops runs whole products, as the
// forward pass does, over matrices of each added format against batches
// of inputs (four-input kernels and single ones) and checks every output
// against the portable dot product of its row and input.
func TestRowFormatMatricesAgreeWithPortableLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const rows, cols = 6, 512
	var types []gguf.TensorType
	for typ := range rowFormats {
		types = append(types, typ)
	}
	slices.Sort(types) // the same data every run
	for _, typ := range types {
		var data []byte
		for i := 0; i < rows; i++ {
			data = append(data, randomRow(r, typ, cols)...)
		}
		m, err := newMatrix(&gguf.Tensor{Name: "w", Dims: []uint64{cols, rows}, Type: typ, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{1, 4, 7} {
			ins := make([]vecInput, batch)
			// one buffer for every input, as the forward pass has: the
			// four-input kernels take inputs side by side
			scratch := make([]float32, batch*cols)
			for b := range ins {
				x := make([]float32, cols)
				for i := range x {
					x[i] = (r.Float32()*2 - 1) * 3
				}
				ins[b].prepare(x, inputForm(m), scratch[b*cols:(b+1)*cols])
			}
			out := make([]float32, batch*rows)
			m.rowsBatch(out, ins, 0, rows)
			for b := range ins {
				for row := 0; row < rows; row++ {
					want := portableDot(m, row, &ins[b])
					// float32 sums of terms as large as mag, in another order
					w, xs := make([]float32, cols), dequantized(&ins[b], inputForm(m), cols)
					m.format.decode(w, m.q[row*m.rowBytes:(row+1)*m.rowBytes])
					mag := 0.0
					for i := range w {
						mag += math.Abs(float64(w[i] * xs[i]))
					}
					if got := out[b*rows+row]; math.Abs(float64(got-want)) > 1e-6*(1+mag) {
						t.Errorf("%s batch %d: row %d input %d: %v, portable %v", typ, batch, row, b, got, want)
					}
				}
			}
		}
	}
}

// portableDot is row · input by the format's portable loop.
func portableDot(m *Matrix, row int, in *vecInput) float32 {
	data := m.q[row*m.rowBytes : (row+1)*m.rowBytes]
	switch m.format.form {
	case formQ8K:
		// the layout by its super-block size, as the file has it or
		// repacked at load
		layouts := map[int]kFormat{84: kQ2, q3KBytes: kQ3, q4KBytes: kQ4, q5KBytes: kQ5, q6KBytes: kQ6,
			q4KPackedBytes: kQ4Packed, q5KPackedBytes: kQ5Packed, q3KPackedBytes: kQ3Packed}
		return layouts[m.rowBytes/(m.Cols/qkK)].dotGo(data, &in.q8k)
	case formBF16:
		w := make([]float32, m.Cols)
		decodeBF16(w, data)
		return dotF32Go(w, in.f)
	default:
		for _, b := range []block32{bQ4_1, bQ5_0, bQ5_1} {
			if b.bytes*m.Cols/qk == m.rowBytes {
				return b.dotGo(data, &in.q8)
			}
		}
	}
	panic("no portable loop for " + m.Type.String())
}
