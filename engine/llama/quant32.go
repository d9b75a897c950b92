package llama

import (
	"encoding/binary"
	"math"
)

// The other 32-value block formats of llama.cpp, which llama-quantize
// uses where a K-quant does not fit (a row not a multiple of 256 values:
// Q4_K falls back to Q5_0, Q5_K to Q5_1) and older files use throughout:
//
//	Q4_1 (20 B): d, m, 16 bytes of nibbles;      x = d*q + m
//	Q5_0 (22 B): d, qh (32 fifth bits), nibbles; x = d*(q - 16)
//	Q5_1 (24 B): d, m, qh, nibbles;              x = d*q + m
//
// Nibbles as in Q4_0: byte j holds value j low and j+16 high; bit j of qh
// is value j's fifth bit. Q5_0 multiplies with Q8_0 activations; Q4_1 and
// Q5_1 with Q8_1, which adds each block's d*sum(q) for the min.
type block32 struct {
	bytes   int
	fifth   bool // a qh word of fifth bits
	hasMin  bool // m follows d
	offset  int8 // taken from each quant
	dataOff int  // where the nibbles start
}

const (
	q4_1Bytes = 20
	q5_0Bytes = 22
	q5_1Bytes = 24
)

var (
	bQ4_1 = block32{bytes: q4_1Bytes, hasMin: true, dataOff: 4}
	bQ5_0 = block32{bytes: q5_0Bytes, fifth: true, offset: 16, dataOff: 6}
	bQ5_1 = block32{bytes: q5_1Bytes, fifth: true, hasMin: true, dataOff: 8}
)

// unpack decodes block blk's quants into q and returns its d and m.
func (f block32) unpack(blk []byte, q *[qk]int8) (d, m float32) {
	d = f16At(blk)
	var qh uint32
	if f.hasMin {
		m = f16At(blk[2:])
	}
	if f.fifth {
		qh = binary.LittleEndian.Uint32(blk[f.dataOff-4:])
	}
	for j, v := range blk[f.dataOff:][:qk/2] {
		lo, hi := int8(v&15), int8(v>>4)
		lo |= int8(qh>>j&1) << 4
		hi |= int8(qh>>(j+16)&1) << 4
		q[j], q[j+qk/2] = lo-f.offset, hi-f.offset
	}
	return d, m
}

func (f block32) decode(dst []float32, row []byte) {
	var q [qk]int8
	for b := 0; b < len(dst)/qk; b++ {
		d, m := f.unpack(row[b*f.bytes:], &q)
		for j, v := range q {
			dst[b*qk+j] = d*float32(v) + m
		}
	}
}

// dotGo is the row's product with a Q8_0 (Q5_0) or Q8_1 (mins) activation.
func (f block32) dotGo(row []byte, x *q8Vec) float32 {
	var q [qk]int8
	var sum float32
	for b, xd := range x.d {
		d, m := f.unpack(row[b*f.bytes:], &q)
		xq := x.q[b*qk:][:qk]
		var s int32
		for j, v := range q {
			s += int32(v) * int32(xq[j])
		}
		sum += d * xd * float32(s)
		if f.hasMin {
			sum += m * x.s[b]
		}
	}
	return sum
}

// bf16 is bfloat16: the top half of a float32.
func bf16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// roundBF16 rounds f to bfloat16 as ggml does (to nearest, ties to even;
// a NaN stays a quiet NaN).
func roundBF16(f float32) float32 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return bf16ToFloat32(uint16(u>>16 | 64))
	}
	return bf16ToFloat32(uint16((u + 0x7fff + (u >> 16 & 1)) >> 16))
}

func decodeBF16(dst []float32, row []byte) {
	for i := range dst {
		dst[i] = bf16ToFloat32(binary.LittleEndian.Uint16(row[2*i:]))
	}
}

// dotBF16Go widens the row a chunk at a time and multiplies in float32,
// as llama.cpp does with activations rounded to bfloat16.
func dotBF16Go(row []byte, x []float32) float32 {
	var buf [256]float32
	var sum float32
	for i := 0; i < len(x); i += len(buf) {
		n := min(len(buf), len(x)-i)
		decodeBF16(buf[:n], row[2*i:])
		sum += dotF32(buf[:n], x[i:i+n])
	}
	return sum
}
