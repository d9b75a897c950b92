package llama

import (
	"encoding/binary"
	"math"

	"github.com/tpsbench/tpsbench/engine/half"
)

// K-quants (llama.cpp's ggml-common.h): super-blocks of 256 values in
// sub-blocks of 16 or 32, each sub-block with its own small integer scale
// (and for Q2_K, Q4_K, Q5_K a min), the scales themselves scaled by the
// super-block's f16 d (and dmin). llama-quantize's Q4_K_M, Q5_K_M and
// Q3_K_M files mix them with Q6_K and Q8_0.
//
//	Q2_K (84 B):  scales[16] (low nibble scale, high nibble min), qs[64]
//	              (2 bits a value), d, dmin
//	Q3_K (110 B): hmask[32] (the third bit), qs[64] (low 2 bits),
//	              scales[12] (16 six-bit scales, less 32), d
//	Q4_K (144 B): d, dmin, scales[12] (8 six-bit scales and 8 mins), qs[128]
//	Q5_K (176 B): d, dmin, scales[12], qh[32] (the fifth bit), qs[128]
//	Q6_K (210 B): ql[128] (low 4 bits), qh[64] (high 2 bits), scales[16]
//	              (int8), d
//
// A value is d*scale*q - dmin*min. Activations are quantized to Q8_K for
// them (a float32 scale for 256 int8 values and the sum of each 16), so a
// product is integer sums with a few float multiplies a super-block, as
// in llama.cpp.
const qkK = 256

// kBlock is one super-block decoded to integers: its 256 quants q and,
// for each 16 values, a scale and a min; value i is
// d*sc[i/16]*q[i] - dmin*mn[i/16].
type kBlock struct {
	q       [qkK]int8
	sc, mn  [qkK / 16]int32
	d, dmin float32
}

// kFormat is a K-quant layout: its super-block size and its decoder.
type kFormat struct {
	bytes  int
	unpack func(blk []byte, u *kBlock)
}

const (
	q4KBytes       = 144
	q4KPackedBytes = 148
	q5KBytes       = 176
	q5KPackedBytes = 180
	q6KBytes       = 210
	q3KBytes       = 110
	q3KPackedBytes = 114
	q2KBytes       = 84
)

var (
	kQ2 = kFormat{q2KBytes, unpackQ2K}
	kQ3 = kFormat{q3KBytes, unpackQ3K}
	kQ4 = kFormat{q4KBytes, unpackQ4K}
	kQ5 = kFormat{q5KBytes, unpackQ5K}
	kQ6 = kFormat{q6KBytes, unpackQ6K}
	// Q4_K and Q5_K with their scales and mins unpacked at load
	// (repackK)
	kQ4Packed = kFormat{q4KPackedBytes, unpackQ4KPacked}
	kQ5Packed = kFormat{q5KPackedBytes, unpackQ5KPacked}
	// Q3_K with its scales unpacked at load (repackQ3K)
	kQ3Packed = kFormat{q3KPackedBytes, unpackQ3KPacked}
)

// repackK rewrites Q4_K or Q5_K super-blocks (of size from bytes) with
// their twelve bytes of packed six-bit scales and mins spread to eight
// scale bytes and eight min bytes: d, dmin, scales[8], mins[8], then the
// rest as it was (Q5_K's qh[32], the nibbles), four bytes more a block, so
// that a product loads them instead of unpacking them for every block of
// every row.
func repackK(q []byte, from int) []byte {
	nb := len(q) / from
	to := from + 4
	out := make([]byte, nb*to)
	for b := 0; b < nb; b++ {
		src, dst := q[b*from:][:from], out[b*to:][:to]
		copy(dst[:4], src[:4])
		for j := 0; j < 8; j++ {
			sc, mn := scaleMinK4(j, src[4:16])
			dst[4+j], dst[12+j] = byte(sc), byte(mn)
		}
		copy(dst[20:], src[16:])
	}
	return out
}

// setScalesPacked spreads repacked scales and mins (repackK) over the
// sixteen 16-value sub-blocks.
func (u *kBlock) setScalesPacked(blk []byte) {
	for j := 0; j < 8; j++ {
		sc, mn := int32(blk[4+j]), int32(blk[12+j])
		u.sc[2*j], u.sc[2*j+1], u.mn[2*j], u.mn[2*j+1] = sc, sc, mn, mn
	}
}

func unpackQ5KPacked(blk []byte, u *kBlock) {
	u.d, u.dmin = f16At(blk), f16At(blk[2:])
	unpackQ5Quants(blk[20:52], blk[52:180], u)
	u.setScalesPacked(blk)
}

func unpackQ4KPacked(blk []byte, u *kBlock) {
	u.d, u.dmin = f16At(blk), f16At(blk[2:])
	for c := 0; c < 4; c++ {
		for l, v := range blk[20+32*c:][:32] {
			u.q[64*c+l], u.q[64*c+32+l] = int8(v&15), int8(v>>4)
		}
	}
	u.setScalesPacked(blk)
}

func f16At(b []byte) float32 { return half.Table(binary.LittleEndian.Uint16(b)) }

func unpackQ2K(blk []byte, u *kBlock) {
	scales, qs := blk[:16], blk[16:80]
	u.d, u.dmin = f16At(blk[80:]), f16At(blk[82:])
	// two halves of 128 values; in each, four 2-bit planes of 32 bytes,
	// each plane two sub-blocks of 16
	for g := 0; g < 16; g++ {
		half, plane, second := g/8, (g%8)/2, g%2
		src := qs[32*half+16*second:][:16]
		for l, v := range src {
			u.q[16*g+l] = int8(v >> (2 * plane) & 3)
		}
		u.sc[g], u.mn[g] = int32(scales[g]&15), int32(scales[g]>>4)
	}
}

func unpackQ3K(blk []byte, u *kBlock) {
	u.d, u.dmin = f16At(blk[108:]), 0
	for g := 0; g < 16; g++ {
		u.sc[g], u.mn[g] = q3Scale(g, blk[96:108]), 0
	}
	unpackQ3Quants(blk[:32], blk[32:96], u)
}

// q3Scale is sub-block g's scale from Q3_K's 12 bytes: 16 six-bit scales,
// low nibbles in the first 8 bytes, high two bits in the last 4, less 32.
func q3Scale(g int, packed []byte) int32 {
	low := packed[g%8] >> (4 * (g / 8)) & 15
	high := packed[8+g%4] >> (2 * (g / 4)) & 3
	return int32(low|high<<4) - 32
}

// unpackQ3Quants decodes Q3_K's quants from their high bits hmask and
// low bits qs.
func unpackQ3Quants(hmask, qs []byte, u *kBlock) {
	for g := 0; g < 16; g++ {
		half, plane, second := g/8, (g%8)/2, g%2
		src := qs[32*half+16*second:][:16]
		hm := hmask[16*second:][:16]
		shift := 4*half + plane
		for l, v := range src {
			// minus 4 where the high bit is clear, without a branch:
			// random bits would be mispredicted half the time
			u.q[16*g+l] = int8(v>>(2*plane)&3) - 4 + int8(hm[l]>>shift&1)<<2
		}
	}
}

// repackQ3K rewrites Q3_K super-blocks with their scales unpacked to 16
// signed bytes: d, scales[16], hmask[32], qs[64] (114 bytes).
func repackQ3K(q []byte) []byte {
	nb := len(q) / q3KBytes
	out := make([]byte, nb*q3KPackedBytes)
	for b := 0; b < nb; b++ {
		src, dst := q[b*q3KBytes:][:q3KBytes], out[b*q3KPackedBytes:][:q3KPackedBytes]
		copy(dst[:2], src[108:110])
		for g := 0; g < 16; g++ {
			dst[2+g] = byte(int8(q3Scale(g, src[96:108])))
		}
		copy(dst[18:], src[:96])
	}
	return out
}

func unpackQ3KPacked(blk []byte, u *kBlock) {
	u.d, u.dmin = f16At(blk), 0
	for g := 0; g < 16; g++ {
		u.sc[g], u.mn[g] = int32(int8(blk[2+g])), 0
	}
	unpackQ3Quants(blk[18:50], blk[50:114], u)
}

// scaleMinK4 reads sub-block j's six-bit scale and min from Q4_K's and
// Q5_K's 12 scale bytes.
func scaleMinK4(j int, s []byte) (sc, mn int32) {
	if j < 4 {
		return int32(s[j] & 63), int32(s[j+4] & 63)
	}
	return int32(s[j+4]&15 | s[j-4]>>6<<4), int32(s[j+4]>>4 | s[j]>>6<<4)
}

func unpackQ4K(blk []byte, u *kBlock) {
	u.d, u.dmin = f16At(blk), f16At(blk[2:])
	scales, qs := blk[4:16], blk[16:144]
	for c := 0; c < 4; c++ { // 64 values: low nibbles, then high
		src := qs[32*c:][:32]
		for l, v := range src {
			u.q[64*c+l], u.q[64*c+32+l] = int8(v&15), int8(v>>4)
		}
	}
	u.setScalesK4(scales)
}

func unpackQ5K(blk []byte, u *kBlock) {
	u.d, u.dmin = f16At(blk), f16At(blk[2:])
	unpackQ5Quants(blk[16:48], blk[48:176], u)
	u.setScalesK4(blk[4:16])
}

// unpackQ5Quants decodes Q5_K's 256 quants from their fifth bits qh and
// nibbles qs.
func unpackQ5Quants(qh, qs []byte, u *kBlock) {
	for c := 0; c < 4; c++ {
		src := qs[32*c:][:32]
		for l, v := range src {
			// the fifth bits, without a branch (see unpackQ3K)
			h := qh[l] >> (2 * c)
			u.q[64*c+l], u.q[64*c+32+l] = int8(v&15|(h&1)<<4), int8(v>>4|(h>>1&1)<<4)
		}
	}
}

// setScalesK4 spreads Q4_K's and Q5_K's eight scales and mins (one each
// 32 values) over the sixteen 16-value sub-blocks.
func (u *kBlock) setScalesK4(scales []byte) {
	for j := 0; j < 8; j++ {
		sc, mn := scaleMinK4(j, scales)
		u.sc[2*j], u.sc[2*j+1], u.mn[2*j], u.mn[2*j+1] = sc, sc, mn, mn
	}
}

func unpackQ6K(blk []byte, u *kBlock) {
	ql, qh, scales := blk[:128], blk[128:192], blk[192:208]
	u.d, u.dmin = f16At(blk[208:]), 0
	for h := 0; h < 2; h++ { // halves of 128 values
		l4, h2, out := ql[64*h:], qh[32*h:], u.q[128*h:]
		for l := 0; l < 32; l++ {
			out[l] = int8(l4[l]&15|(h2[l]&3)<<4) - 32
			out[l+32] = int8(l4[l+32]&15|(h2[l]>>2&3)<<4) - 32
			out[l+64] = int8(l4[l]>>4|(h2[l]>>4&3)<<4) - 32
			out[l+96] = int8(l4[l+32]>>4|(h2[l]>>6&3)<<4) - 32
		}
	}
	for g := range u.sc {
		u.sc[g], u.mn[g] = int32(int8(scales[g])), 0
	}
}

// decode writes the row's n values.
func (k kFormat) decode(dst []float32, row []byte) {
	var u kBlock
	for b := 0; b < len(dst)/qkK; b++ {
		k.unpack(row[b*k.bytes:], &u)
		out := dst[b*qkK:][:qkK]
		for g := 0; g < 16; g++ {
			dl, ml := u.d*float32(u.sc[g]), u.dmin*float32(u.mn[g])
			for l := 0; l < 16; l++ {
				out[16*g+l] = dl*float32(u.q[16*g+l]) - ml
			}
		}
	}
}

// dotGo is the row's dot product with a Q8_K activation: per super-block,
// integer sums of quants times activations (scaled per sub-block) and of
// mins times the activations' 16-value sums.
func (k kFormat) dotGo(row []byte, x *q8kVec) float32 {
	var u kBlock
	var sum float32
	for b, xd := range x.d {
		k.unpack(row[b*k.bytes:], &u)
		xq, bsums := x.q[b*qkK:][:qkK], x.bsums[b*16:][:16]
		var sumi, summ int32
		for g := 0; g < 16; g++ {
			var s int32
			for l := 0; l < 16; l++ {
				s += int32(u.q[16*g+l]) * int32(xq[16*g+l])
			}
			sumi += u.sc[g] * s
			summ += u.mn[g] * int32(bsums[g])
		}
		sum += xd*u.d*float32(sumi) - xd*u.dmin*float32(summ)
	}
	return sum
}

// q8kVec is an activation vector quantized to Q8_K.
type q8kVec struct {
	q     []int8
	d     []float32
	bsums []int16 // the sum of each 16 quants
	s32   []int16 // the sum of each 32, for packed Q4_K (sums32)
}

// quantize quantizes x (len a multiple of 256) as llama.cpp's
// quantize_row_q8_K: the value of largest magnitude maps to -127, quants
// round half to even, and the scale is kept as float32.
func (v *q8kVec) quantize(x []float32) {
	nb := len(x) / qkK
	if cap(v.q) < len(x) {
		v.q, v.d, v.bsums = make([]int8, len(x)), make([]float32, nb), make([]int16, nb*16)
	}
	v.q, v.d, v.bsums = v.q[:len(x)], v.d[:nb], v.bsums[:nb*16]
	for b := range v.d {
		blk, q := x[b*qkK:][:qkK], v.q[b*qkK:][:qkK]
		var amax, vmax float32
		for _, f := range blk {
			if a := abs32(f); a > amax {
				amax, vmax = a, f
			}
		}
		if amax == 0 {
			v.d[b] = 0
			clear(q)
			clear(v.bsums[b*16:][:16])
			continue
		}
		iscale := -127 / vmax
		for j, f := range blk {
			q[j] = int8(min(127, math.RoundToEven(float64(iscale*f))))
		}
		for g := 0; g < 16; g++ {
			var s int16
			for _, qv := range q[16*g:][:16] {
				s += int16(qv)
			}
			v.bsums[b*16+g] = s
		}
		v.d[b] = 1 / iscale
	}
}
