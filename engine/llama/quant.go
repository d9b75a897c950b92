package llama

import (
	"encoding/binary"
	"math"

	"github.com/tpsbench/tpsbench/engine/half"
)

// Block layouts of llama.cpp (ggml-common.h): 32 elements a block.
//
//	Q8_0: f16 scale d, 32 int8 q;            x = d * q
//	Q4_0: f16 scale d, 16 bytes of nibbles;  x = d * (nibble - 8); byte j
//	      holds element j in its low nibble and element j+16 in its high.
const (
	qk       = 32
	q8Bytes  = 2 + qk
	q4Bytes  = 2 + qk/2
	q8Scale0 = 127
)

// q8Scale is a Q8_0 block's scale (its largest magnitude maps to 127) and
// the scale's inverse (0 for a block of zeros), as llama-quantize
// computes them for weights.
func q8Scale(blk []float32) (d, id float32) {
	d = absMax(blk) / q8Scale0
	if d != 0 {
		id = 1 / d
	}
	return d, id
}

// absMax is the largest magnitude in x.
func absMax(x []float32) float32 {
	amax := float32(0)
	for _, v := range x {
		amax = max(amax, abs32(v))
	}
	return amax
}

// QuantizeQ8_0 appends the Q8_0 encoding of x (len a multiple of 32).
func QuantizeQ8_0(dst []byte, x []float32) []byte {
	for b := 0; b < len(x); b += qk {
		blk := x[b : b+qk]
		d, id := q8Scale(blk)
		dst = binary.LittleEndian.AppendUint16(dst, half.FromFloat32(d))
		for _, v := range blk {
			dst = append(dst, byte(int8(roundHalfAway(v*id))))
		}
	}
	return dst
}

// QuantizeQ4_0 appends the Q4_0 encoding of x (len a multiple of 32), as
// ggml's reference quantizer does: the scale maps the value of largest
// magnitude to -8.
func QuantizeQ4_0(dst []byte, x []float32) []byte {
	for b := 0; b < len(x); b += qk {
		blk := x[b : b+qk]
		amax, vmax := float32(0), float32(0)
		for _, v := range blk {
			if abs32(v) > amax {
				amax, vmax = abs32(v), v
			}
		}
		d := vmax / -8
		id := float32(0)
		if d != 0 {
			id = 1 / d
		}
		dst = binary.LittleEndian.AppendUint16(dst, half.FromFloat32(d))
		for j := 0; j < qk/2; j++ {
			x0 := blk[j]*id + 8.5
			x1 := blk[j+qk/2]*id + 8.5
			q0 := min(uint8(15), uint8(int8(x0)))
			q1 := min(uint8(15), uint8(int8(x1)))
			dst = append(dst, q0|q1<<4)
		}
	}
	return dst
}

// dequantRow writes the n float32 values of one row of format-typed data.
func dequantRow(dst []float32, m *Matrix, row int) {
	switch {
	case m.f32 != nil:
		copy(dst, m.f32[row*m.Cols:(row+1)*m.Cols])
	case m.f16 != nil:
		src := m.f16[row*m.Cols : (row+1)*m.Cols]
		for i, h := range src {
			dst[i] = half.Table(h)
		}
	case m.Type == typeQ8_0:
		data := m.q[row*m.rowBytes : (row+1)*m.rowBytes]
		for b := 0; b < m.Cols/qk; b++ {
			blk := data[b*q8Bytes:]
			d := half.Table(binary.LittleEndian.Uint16(blk))
			for j := 0; j < qk; j++ {
				dst[b*qk+j] = d * float32(int8(blk[2+j]))
			}
		}
	case m.Type == typeQ4_0:
		data := m.q[row*m.rowBytes : (row+1)*m.rowBytes]
		for b := 0; b < m.Cols/qk; b++ {
			blk := data[b*q4Bytes:]
			d := half.Table(binary.LittleEndian.Uint16(blk))
			for j := 0; j < qk/2; j++ {
				dst[b*qk+j] = d * float32(int(blk[2+j]&0xf)-8)
				dst[b*qk+j+qk/2] = d * float32(int(blk[2+j]>>4)-8)
			}
		}
	default:
		m.format.decode(dst[:m.Cols], m.q[row*m.rowBytes:(row+1)*m.rowBytes])
	}
}

// q8Vec is an activation vector quantized to Q8_0 for integer dot products
// with quantized weights, as llama.cpp quantizes the activations.
type q8Vec struct {
	q []int8
	d []float32
	// bias holds, for each block, minus the sum of its quants: Q4_0
	// kernels multiply raw nibbles (0..15) and add it to each of eight
	// lanes to take away the 8 every nibble carries, instead of re-signing
	// each one.
	bias []int32
	// sb interleaves each block's scale and eight times its bias, for
	// the packed Q4_0 kernels (see scaleBias).
	sb []uint32
	// s holds each block's d*sum(q), rounded to F16 as in llama.cpp's
	// Q8_1 blocks: the formats with a min (Q4_1, Q5_1) add min*s.
	s []float32
}

func (v *q8Vec) quantize(x []float32) {
	nb := len(x) / qk
	if cap(v.q) < len(x) {
		v.q = make([]int8, len(x))
		v.d = make([]float32, nb)
		v.bias = make([]int32, nb)
	}
	v.q, v.d, v.bias = v.q[:len(x)], v.d[:nb], v.bias[:nb]
	v.quantizeBlocks(x)
}

// quantizeGo is quantize's portable form, llama.cpp's quantize_row_q8_0
// on every x86 CPU with AVX (and its repacked kernels' input rows): each
// block's scale maps its largest magnitude to 127, the values are
// multiplied by 127/amax (not by 1/d, which differs in the last bit for
// some amax) and rounded half to even. Weights are quantized otherwise
// (QuantizeQ8_0), as llama-quantize does.
func (v *q8Vec) quantizeGo(x []float32) {
	for b := range v.d {
		blk := x[b*qk : (b+1)*qk]
		amax := absMax(blk)
		// The scale is stored as f16 in llama.cpp's block: round it the same way.
		v.d[b] = half.Table(half.FromFloat32(amax / q8Scale0))
		var id float32
		if amax != 0 {
			id = q8Scale0 / amax
		}
		q := v.q[b*qk : (b+1)*qk]
		var sum int32
		for j, f := range blk {
			q[j] = int8(math.RoundToEven(float64(f * id)))
			sum += int32(q[j])
		}
		v.bias[b] = -sum
	}
}

// blockSums fills s for the x that was just quantized.
func (v *q8Vec) blockSums(x []float32) {
	if cap(v.s) < len(v.d) {
		v.s = make([]float32, len(v.d))
	}
	v.s = v.s[:len(v.d)]
	for b := range v.d {
		d := absMax(x[b*qk:(b+1)*qk]) / q8Scale0
		v.s[b] = half.Table(half.FromFloat32(d * float32(-v.bias[b])))
	}
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// roundHalfAway rounds to nearest, halves away from zero (C's roundf).
func roundHalfAway(v float32) float32 { return float32(math.Round(float64(v))) }
