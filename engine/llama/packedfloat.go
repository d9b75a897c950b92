package llama

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/half"
)

// F32, F16 and BF16 weights repacked for batches (packedfloat_amd64.s).
//
// Rows go in groups of 16, and a group holds, for each column k, the 16
// rows' values at k side by side (64 bytes for F32, 32 for F16 and BF16).
// One load puts column k of 16 rows in the lanes of a register, and a
// multiply-add against input j's value at k, broadcast to every lane,
// advances those rows' sums for that input: two groups (32 rows) against
// up to 12 inputs keep 24 sums in registers, and each column's two loads
// serve 24 multiply-adds. The row-major kernel (four rows by four inputs,
// f32r4x4AVX512) loads a register for every two, and ends each call
// folding its sums across lanes, which at a small model's 288 columns
// took a good part of the call: at batch 32 its products ran at a
// quarter of the cores' multiply-add rate. A pass over a unit also
// prefetches the next one: a matrix larger than the cache (the output
// head) otherwise waited on memory at batches too small to hide it
// (BenchmarkFloatProduct, one thread, 15m's head at batch 8: 73 GFLOP/s
// without, 124-148 with; the four-by-four kernel 48).
//
// Each row's sum runs over k in order in one lane, whatever the number of
// inputs: a row's product with an input comes out the same, bit for bit,
// in a batch of any size.

// floatUnitRows is the rows a packed float matrix is computed in: two
// groups.
const floatUnitRows = 2 * q4GroupRows

// floatWidths are the input counts the kernels take, widest first.
var floatWidths = [...]int{12, 8, 4, 2, 1}

// floatElemBytes is the size of a value of a float format.
func floatElemBytes(typ gguf.TensorType) int {
	if typ == typeF32 {
		return 4
	}
	return 2
}

// isFloat reports whether typ is one of the formats packFloatGroup takes.
func isFloat(typ gguf.TensorType) bool {
	return typ == typeF32 || typ == typeF16 || typ == gguf.BF16
}

// packFloatGroup repacks 16-row group g of float rows (es bytes a value)
// into the layout above.
func packFloatGroup(out, data []byte, g, cols, es int) {
	dst := out[g*q4GroupRows*cols*es:][:q4GroupRows*cols*es]
	for r := range q4GroupRows {
		row := data[(g*q4GroupRows+r)*cols*es:][:cols*es]
		for k := range cols {
			copy(dst[(k*q4GroupRows+r)*es:][:es], row[k*es:])
		}
	}
}

// floatW1Units is how many units floatW1x4 takes a call.
const floatW1Units = 4

// rowsPackedFloat computes out[b*m.Rows+r] = row r · ins[b] for the rows
// of units [lo, hi) (floatUnitRows each) of a packed float matrix.
func (m *Matrix) rowsPackedFloat(out []float32, ins []vecInput, lo, hi int) {
	rows := m.Rows
	unitBytes := floatUnitRows * m.Cols * floatElemBytes(m.Type)
	if len(ins) == 1 { // batch 1: units four at a time
		for ; lo+floatW1Units <= hi; lo += floatW1Units {
			floatW1x4(m.Type, m.packed[lo*unitBytes:][:floatW1Units*unitBytes], ins[0].f, out[lo*floatUnitRows:])
		}
	}
	inOne := inOneBuffer(ins, m.Cols) // checked once, not for every unit
	// inputs in tiles that stay in cache while the rows stream past, as in
	// rowsBatch; each unit's rows stay in cache while the tile's inputs
	// pass in widths the kernels take
	const tile = 48
	for t := 0; t < len(ins); t += tile {
		end := min(t+tile, len(ins))
		for u := lo; u < hi; u++ {
			w := m.packed[u*unitBytes:][:unitBytes]
			r0 := u * floatUnitRows
			for b := t; b < end; {
				width := 1
				for _, wd := range floatWidths {
					if b+wd <= end {
						width = wd
						break
					}
				}
				floatP2(m.Type, w, ins[b:b+width], inOne, out[b*rows+r0:], rows)
				b += width
			}
		}
	}
}

// inOneBuffer reports whether the inputs are consecutive rows of n values
// in one buffer, as the tiled kernels read them: matMul's are (the step's
// activations, or F16 and BF16 ones rounded in its scratch).
func inOneBuffer(ins []vecInput, n int) bool {
	x0 := unsafe.Pointer(unsafe.SliceData(ins[0].f))
	for b := range ins {
		if len(ins[b].f) != n || unsafe.Pointer(unsafe.SliceData(ins[b].f)) != unsafe.Add(x0, 4*b*n) {
			return false
		}
	}
	return true
}

// floatP2Go is the portable form of the packed float kernels: two groups
// (w, 32 rows) against inputs ins, each row's sum in order of k as one
// lane of the assembly adds it (a multiply-add, rounded once).
func floatP2Go(typ gguf.TensorType, w []byte, ins []vecInput, out []float32, ostride int) {
	es := floatElemBytes(typ)
	n := len(ins[0].f)
	for j, in := range ins {
		for r := range floatUnitRows {
			g, lane := r/q4GroupRows, r%q4GroupRows
			var sum float32
			for k, x := range in.f {
				v := w[(g*n*q4GroupRows+k*q4GroupRows+lane)*es:]
				sum = float32(math.FMA(float64(floatValue(typ, v)), float64(x), float64(sum)))
			}
			out[j*ostride+r] = sum
		}
	}
}

// floatW1x4Go is floatW1x4's portable form: floatP2Go unit by unit.
func floatW1x4Go(typ gguf.TensorType, w []byte, x []float32, out []float32) {
	unitBytes := len(w) / floatW1Units
	in := []vecInput{{f: x}}
	for u := range floatW1Units {
		floatP2Go(typ, w[u*unitBytes:][:unitBytes], in, out[u*floatUnitRows:], 0)
	}
}

// floatValue reads one little-endian F32, F16 or BF16 value.
func floatValue(typ gguf.TensorType, b []byte) float32 {
	switch typ {
	case typeF16:
		return half.Table(binary.LittleEndian.Uint16(b))
	case gguf.BF16:
		return bf16ToFloat32(binary.LittleEndian.Uint16(b))
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}
