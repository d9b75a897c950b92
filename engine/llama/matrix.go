package llama

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/half"
)

const (
	typeF32  = gguf.F32
	typeF16  = gguf.F16
	typeQ8_0 = gguf.Q8_0
	typeQ4_0 = gguf.Q4_0
)

// Matrix is a weight matrix in its file format: Rows rows of Cols values,
// read in place from the (mapped) file.
type Matrix struct {
	Type       gguf.TensorType
	Rows, Cols int
	f32        []float32
	f16        []uint16
	q          []byte
	rowBytes   int
	// packed is the matrix repacked for the packed kernels (Q4_0, Q8_0,
	// Q5_0, Q4_K and Q6_K for VNNI, packed.go; F32, F16 and BF16 for
	// AVX-512, packedfloat.go), where the CPU has them; the file's rows
	// stay for single rows (embeddings).
	packed []byte
	// format computes with the formats of rowFormats; nil for the four
	// with kernels of their own
	format *rowFormat
}

// newMatrix views a tensor's data as a matrix; 1-D tensors are one row.
func newMatrix(t *gguf.Tensor) (*Matrix, error) {
	m := &Matrix{Type: t.Type, Cols: int(t.Dims[0]), Rows: 1}
	for _, d := range t.Dims[1:] {
		m.Rows *= int(d)
	}
	m.rowBytes = t.Type.RowBytes(m.Cols)
	switch t.Type {
	case typeF32:
		if uintptr(unsafe.Pointer(unsafe.SliceData(t.Data)))%4 != 0 {
			return nil, fmt.Errorf("tensor %s: F32 data not aligned", t.Name)
		}
		m.f32 = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(t.Data))), len(t.Data)/4)
		if packFloats && packable(t.Type, m.Rows, m.Cols) {
			m.packed = pack(t.Type, t.Data, m.Rows, m.Cols) // the file's rows stay for embeddings
		}
	case typeF16:
		if uintptr(unsafe.Pointer(unsafe.SliceData(t.Data)))%2 != 0 {
			return nil, fmt.Errorf("tensor %s: F16 data not aligned", t.Name)
		}
		m.f16 = unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(t.Data))), len(t.Data)/2)
		if packFloats && packable(t.Type, m.Rows, m.Cols) {
			m.packed = pack(t.Type, t.Data, m.Rows, m.Cols)
		}
	case typeQ8_0, typeQ4_0:
		m.q = t.Data
		if (vnni || packAVX2) && packable(t.Type, m.Rows, m.Cols) {
			m.packed = pack(t.Type, m.q, m.Rows, m.Cols)
		}
	default:
		rf, ok := rowFormats[t.Type]
		if !ok {
			return nil, fmt.Errorf("tensor %s: format %s is not supported (%s are)", t.Name, t.Type, supportedFormats())
		}
		m.q, m.format = t.Data, &rf
		switch {
		case (t.Type == gguf.Q4_K || t.Type == gguf.Q6_K || t.Type == gguf.Q5_0) && vnni && packable(t.Type, m.Rows, m.Cols):
			// the file's layout stays for single rows (embeddings)
			m.packed = pack(t.Type, m.q, m.Rows, m.Cols)
		case t.Type == gguf.BF16 && packFloats && packable(t.Type, m.Rows, m.Cols):
			m.packed = pack(t.Type, m.q, m.Rows, m.Cols)
		case t.Type == gguf.Q4_K && simd:
			m.q, m.format = repackK(t.Data, q4KBytes), &q4KPacked
			m.rowBytes = m.Cols / qkK * q4KPackedBytes
		case t.Type == gguf.Q5_K && simd:
			m.q, m.format = repackK(t.Data, q5KBytes), &q5KPacked
			m.rowBytes = m.Cols / qkK * q5KPackedBytes
		case t.Type == gguf.Q3_K && simd:
			m.q, m.format = repackQ3K(t.Data), &q3KPacked
			m.rowBytes = m.Cols / qkK * q3KPackedBytes
		}
	}
	return m, nil
}

// Bytes is the size of the matrix's data: what a product reads (the
// packed form's, where there is one: Q4_K's is 2.8% over the file's).
func (m *Matrix) Bytes() int {
	if m.packed != nil {
		return len(m.packed)
	}
	return m.Rows * m.rowBytes
}

// FileBytes is the size of the matrix's data in the file's format.
func (m *Matrix) FileBytes() int { return m.Rows * m.Type.RowBytes(m.Cols) }

// vecInput is an activation vector prepared for a matrix's format.
type vecInput struct {
	f   []float32 // as is (F32 weights), or rounded to F16 or BF16
	q8  q8Vec     // quantized (Q8_0, Q4_0 and the other 32-value formats)
	q8k q8kVec    // quantized (K-quants)
}

// prepare readies x for products with weights of input form form, as
// llama.cpp converts activations to the weights' dot-product type.
func (in *vecInput) prepare(x []float32, form int, scratch []float32) {
	switch form {
	case formF32:
		in.f = x
	case formF16:
		in.f = scratch[:len(x)]
		for i, v := range x {
			in.f[i] = half.Table(half.FromFloat32(v))
		}
	case formBF16:
		in.f = scratch[:len(x)]
		for i, v := range x {
			in.f[i] = roundBF16(v)
		}
	case formQ8K:
		in.q8k.quantize(x)
	case formPackedQ4K:
		in.q8k.quantize(x)
		in.q8k.sums32()
	case formPackedQ4:
		in.q8.quantize(x)
		in.q8.scaleBias(packOffset(typeQ4_0))
	case formPackedQ8:
		in.q8.quantize(x)
		in.q8.scaleBias(packOffset(typeQ8_0))
	case formPackedQ5_0:
		in.q8.quantize(x)
		in.q8.scaleBias(packOffset(gguf.Q5_0))
	case formQ8_1:
		in.q8.quantize(x)
		in.q8.blockSums(x)
	default:
		in.q8.quantize(x)
	}
}

// rowsBatch computes out[b*m.Rows+r] = row r · ins[b] for r in [lo, hi)
// and every input: the row is read from memory once and stays in cache
// while it meets each input.
func (m *Matrix) rowsBatch(out []float32, ins []vecInput, lo, hi int) {
	// Inputs in tiles small enough to stay in cache while this thread's
	// rows stream past them: with a long prompt the inputs alone are
	// megabytes, and reading them again for every row would make the
	// product wait on memory.
	const tile = 32
	for t := 0; t < len(ins); t += tile {
		m.rowsTile(out, ins[t:min(t+tile, len(ins))], t, lo, hi)
	}
}

// rowsTile computes rows [lo, hi) against ins, which are inputs first,
// first+1, ... of the batch.
func (m *Matrix) rowsTile(out []float32, ins []vecInput, first, lo, hi int) {
	n, rows := m.Cols, m.Rows
	var four [4]float32
	done := m.tile4x4(out, ins, first, lo, hi) // rows [lo, done) against the inputs in fours
	for r := lo; r < hi; r++ {
		b := 0
		if r < done {
			b = len(ins) &^ 3
		}
		// four inputs at a time where a kernel takes them: the row is
		// loaded (and unpacked) once for the four
		for ; b+4 <= len(ins); b += 4 {
			if !m.rowBatch4(&four, r, ins[b:b+4]) {
				break
			}
			o := (first + b) * rows
			out[o+r], out[o+rows+r], out[o+2*rows+r], out[o+3*rows+r] = four[0], four[1], four[2], four[3]
		}
		switch m.Type {
		case typeF32:
			row := m.f32[r*n : (r+1)*n]
			for ; b < len(ins); b++ {
				out[(first+b)*rows+r] = dotF32(row, ins[b].f)
			}
		case typeF16:
			row := m.f16[r*n : (r+1)*n]
			for ; b < len(ins); b++ {
				out[(first+b)*rows+r] = dotF16(row, ins[b].f)
			}
		case typeQ8_0:
			row := m.q[r*m.rowBytes : (r+1)*m.rowBytes]
			for ; b < len(ins); b++ {
				out[(first+b)*rows+r] = dotQ8(row, &ins[b].q8)
			}
		case typeQ4_0:
			row := m.q[r*m.rowBytes : (r+1)*m.rowBytes]
			for ; b < len(ins); b++ {
				out[(first+b)*rows+r] = dotQ4(row, &ins[b].q8)
			}
		default:
			row, dot := m.q[r*m.rowBytes:(r+1)*m.rowBytes], m.format.dot
			for ; b < len(ins); b++ {
				out[(first+b)*rows+r] = dot(row, &ins[b])
			}
		}
	}
}

func dotF32Go(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotF16Go(a []uint16, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += half.Table(a[i]) * b[i]
		s1 += half.Table(a[i+1]) * b[i+1]
		s2 += half.Table(a[i+2]) * b[i+2]
		s3 += half.Table(a[i+3]) * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += half.Table(a[i]) * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotQ8Go(row []byte, x *q8Vec) float32 {
	var sum float32
	for b := range x.d {
		blk := row[b*q8Bytes : (b+1)*q8Bytes]
		d := half.Table(binary.LittleEndian.Uint16(blk))
		qs := blk[2:q8Bytes]
		xq := x.q[b*qk : (b+1)*qk]
		var s int32
		for j := 0; j < qk; j += 4 {
			s += int32(int8(qs[j]))*int32(xq[j]) + int32(int8(qs[j+1]))*int32(xq[j+1]) +
				int32(int8(qs[j+2]))*int32(xq[j+2]) + int32(int8(qs[j+3]))*int32(xq[j+3])
		}
		sum += d * x.d[b] * float32(s)
	}
	return sum
}

func dotQ4Go(row []byte, x *q8Vec) float32 {
	var sum float32
	for b := range x.d {
		blk := row[b*q4Bytes : (b+1)*q4Bytes]
		d := half.Table(binary.LittleEndian.Uint16(blk))
		qs := blk[2:q4Bytes]
		xq := x.q[b*qk : (b+1)*qk]
		var s int32
		for j := 0; j < qk/2; j++ {
			v := qs[j]
			s += (int32(v&0xf)-8)*int32(xq[j]) + (int32(v>>4)-8)*int32(xq[j+qk/2])
		}
		sum += d * x.d[b] * float32(s)
	}
	return sum
}

func axpyGo(a float32, x, y []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}

func scoresStridedGo(q, base []float32, stride int, scale float32, out []float32) {
	for t := range out {
		out[t] = dotF32Go(q, base[t*stride:t*stride+len(q)]) * scale
	}
}

func accumulateStridedGo(a, v []float32, stride int, y []float32) {
	for t, w := range a {
		axpyGo(w, v[t*stride:t*stride+len(y)], y)
	}
}

func siluMulGo(gate, up []float32) {
	up = up[:len(gate)]
	for j, g := range gate {
		gate[j] = g / (1 + exp32(-g)) * up[j]
	}
}
