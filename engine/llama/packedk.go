package llama

import (
	"encoding/binary"

	"github.com/tpsbench/tpsbench/engine/half"
)

// Q4_K weights repacked for the VNNI kernels (kquant_amd64.s,
// q4kr16x4VNNI), on the plan of packed Q4_0 (packed.go): rows in groups
// of 16, and for each group and super-block
//
//	d[16], dmin[16]     the rows' f16 scales, row r's at 2r
//	scales[8][16]       sub-block s's six-bit scale of row r at 16s+r
//	mins[4][16][2]      the mins of sub-blocks 2p and 2p+1 of row r at 32p+2r
//	runs[8][8][32]      sub-block s's values as a packed Q4_0 block: run g's
//	                    byte 4r+j holds value 4g+j of row r in its low
//	                    nibble and of row r+8 in its high one
//
// so that one VPDPBUSD against four input bytes advances 16 rows of a
// sub-block, one VPMULLD scales the 16 sums, and the mins meet the
// input's 32-value sums in pairs, one VPDPWSSD each. The whole block stays
// in integers, as llama.cpp's Q4_K product does; 2,368 bytes, four a row
// and super-block more than the file.
const (
	q4KGroupBlock = 2368
	q4KGroupMins  = 192 // offset of mins
	q4KGroupRuns  = 320 // offset of the first sub-block's runs
)

// packQ4KGroup repacks 16-row group g of Q4_K rows (the file's layout)
// into the layout above.
func packQ4KGroup(out, q []byte, g, cols int) {
	nb := cols / qkK
	rowBytes := nb * q4KBytes
	var u [q4GroupRows]kBlock
	for b := 0; b < nb; b++ {
		dst := out[(g*nb+b)*q4KGroupBlock:][:q4KGroupBlock]
		for r := range q4GroupRows {
			blk := q[(g*q4GroupRows+r)*rowBytes+b*q4KBytes:][:q4KBytes]
			unpackQ4K(blk, &u[r])
			copy(dst[2*r:], blk[0:2])
			copy(dst[32+2*r:], blk[2:4])
			for s := range 8 {
				dst[64+16*s+r] = byte(u[r].sc[2*s])
				dst[q4KGroupMins+32*(s/2)+2*r+s%2] = byte(u[r].mn[2*s])
			}
		}
		for s := range 8 {
			run := dst[q4KGroupRuns+256*s:][:256]
			for r := range q4GroupRows / 2 {
				lo, hi := u[r].q[32*s:][:32], u[r+8].q[32*s:][:32]
				for e := range 32 {
					run[32*(e/4)+4*r+e%4] = byte(lo[e]) | byte(hi[e])<<4
				}
			}
		}
	}
}

// sums32 fills v.sums32 with the sum of each 32 quants (pairs of bsums),
// the packed Q4_K kernels' operand for the mins.
func (v *q8kVec) sums32() {
	n := len(v.bsums) / 2
	if cap(v.s32) < n {
		v.s32 = make([]int16, n)
	}
	v.s32 = v.s32[:n]
	for i := range v.s32 {
		v.s32[i] = v.bsums[2*i] + v.bsums[2*i+1]
	}
}

// q4kr16x1Go is the portable form of the packed Q4_K kernel: 16 rows of a
// packed group against one input, lane by lane as the assembly goes.
func q4kr16x1Go(w []byte, x *q8kVec, out *[16]float32) {
	*out = [16]float32{}
	for b, xd := range x.d {
		blk := w[b*q4KGroupBlock:][:q4KGroupBlock]
		xq, s32 := x.q[b*qkK:][:qkK], x.s32[b*8:][:8]
		for r := range q4GroupRows {
			var sumi, summ int32
			for s := range 8 {
				var dot int32
				for e := range 32 {
					u := blk[q4KGroupRuns+256*s+32*(e/4)+4*(r%8)+e%4]
					if r >= 8 {
						u >>= 4
					}
					dot += int32(u&15) * int32(xq[32*s+e])
				}
				sumi += int32(blk[64+16*s+r]) * dot
				summ += int32(blk[q4KGroupMins+32*(s/2)+2*r+s%2]) * int32(s32[s])
			}
			d := half.Table(binary.LittleEndian.Uint16(blk[2*r:]))
			dmin := half.Table(binary.LittleEndian.Uint16(blk[32+2*r:]))
			out[r] += d*xd*float32(sumi) - dmin*xd*float32(summ)
		}
	}
}

// Q6_K weights repacked for the VNNI kernels (q6kr16x4VNNI), rows in
// groups of 16 as Q4_K's, for each group and super-block
//
//	d[16]               the rows' f16 scales
//	scales[8][16][2]    the int8 scales of sub-blocks 2p and 2p+1 of row
//	                    r at 32p+2r (16 values a sub-block)
//	sub[16]             each sub-block's four runs of nibbles (32 bytes
//	                    each, as packed Q4_0's), then for each run eight
//	                    bytes of fifth bits and eight of sixth bits: bit
//	                    4r+j of each goes with byte 4r+j of the run's
//	                    register, as packed Q5_0's fifth bits do
//
// The quants are unsigned (q+32), so a row's sum is its scaled integer
// dots less 32 times its scales against the input's 16-value sums, which
// one VPDPWSSD a pair of sub-blocks gives. 3,360 bytes, the file's size.
const (
	q6KGroupBlock = 3360
	q6KGroupSubs  = 288 // offset of the first sub-block
	q6KGroupSub   = 192 // bytes a sub-block: 4 runs of 32, 4 of 16 bits
)

// packQ6KGroup repacks 16-row group g of Q6_K rows into the layout above.
func packQ6KGroup(out, q []byte, g, cols int) {
	nb := cols / qkK
	rowBytes := nb * q6KBytes
	var u [q4GroupRows]kBlock
	for b := 0; b < nb; b++ {
		dst := out[(g*nb+b)*q6KGroupBlock:][:q6KGroupBlock]
		for r := range q4GroupRows {
			blk := q[(g*q4GroupRows+r)*rowBytes+b*q6KBytes:][:q6KBytes]
			unpackQ6K(blk, &u[r])
			copy(dst[2*r:], blk[208:210])
			for s := range 16 {
				dst[32+32*(s/2)+2*r+s%2] = byte(int8(u[r].sc[s]))
			}
		}
		for s := range 16 {
			sub := dst[q6KGroupSubs+q6KGroupSub*s:][:q6KGroupSub]
			for e := range 16 {
				run := e / 4
				for r := range q4GroupRows {
					v := byte(u[r].q[16*s+e] + 32) // 0..63
					sub[32*run+4*(r%8)+e%4] |= (v & 15) << (4 * (r / 8))
					bit := 4*r + e%4
					sub[128+16*run+bit/8] |= (v >> 4 & 1) << (bit % 8)
					sub[128+16*run+8+bit/8] |= (v >> 5 & 1) << (bit % 8)
				}
			}
		}
	}
}

// q6kr16x1Go is the portable form of the packed Q6_K kernel, lane by lane
// as the assembly goes.
func q6kr16x1Go(w []byte, x *q8kVec, out *[16]float32) {
	*out = [16]float32{}
	for b, xd := range x.d {
		blk := w[b*q6KGroupBlock:][:q6KGroupBlock]
		xq, bsums := x.q[b*qkK:][:qkK], x.bsums[b*16:][:16]
		for r := range q4GroupRows {
			var sumi, sums int32
			for s := range 16 {
				sub := blk[q6KGroupSubs+q6KGroupSub*s:][:q6KGroupSub]
				var dot int32
				for e := range 16 {
					run, bit := e/4, 4*r+e%4
					v := sub[32*run+4*(r%8)+e%4]
					if r >= 8 {
						v >>= 4
					}
					v &= 15
					v |= (sub[128+16*run+bit/8] >> (bit % 8) & 1) << 4
					v |= (sub[128+16*run+8+bit/8] >> (bit % 8) & 1) << 5
					dot += int32(v) * int32(xq[16*s+e])
				}
				sc := int32(int8(blk[32+32*(s/2)+2*r+s%2]))
				sumi += sc * dot
				sums += sc * int32(bsums[s])
			}
			d := half.Table(binary.LittleEndian.Uint16(blk[2*r:]))
			out[r] += d * xd * float32(sumi-32*sums)
		}
	}
}
