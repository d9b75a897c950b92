package llama

import (
	"encoding/binary"
	"math"
	"runtime"
	"sync"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/half"
)

// Q4_0 and Q8_0 weights repacked for the VNNI kernels (kernels_amd64.s,
// q4r16x4, q8r16x4), and for the AVX2 ones on CPUs without VNNI
// (packedavx2_amd64.s: eight rows a 256-bit register).
//
// Rows go in groups of 16, and for each group and block the packed form
// holds the 16 rows' f16 scales (row r's at 2r), then for each of the
// block's eight runs of four elements 32 bytes: byte 4r+j holds element
// 4g+j of row r in its low nibble and of row r+8 in its high one. One
// 32-byte load, unpacked to its low nibbles then its high ones, puts row
// r's four weights in 32-bit lane r of a 64-byte register: an integer dot
// product instruction (VPDPBUSD) against four bytes of the input
// broadcast to every lane then advances sixteen rows at once, and each
// lane ends a block holding one row's whole sum, which its scale and the
// input's multiply without any shuffling. The size is the file's: 288
// bytes a group and block.
//
// Q8_0 packs the same way (packQ8): after the scales, each run's 64 bytes
// hold row r's four weights at 4r, each plus 128, so that they are the
// unsigned operand as the nibbles are; the input's bias is then minus 128
// times its sum.
//
// Q5_0 (which llama-quantize's Q4_K_M puts in rows not a multiple of 256,
// as in Qwen2.5-0.5B's) packs its nibbles as Q4_0 does and then, for each
// run, eight bytes of fifth bits: bit 4r+j is the fifth bit of the value
// whose nibble is byte 4r+j of the run's register, so that the bits load
// as a mask that adds 16 to those bytes. 352 bytes a group and block, the
// file's size; the input's bias is minus 16 times its sum.

const (
	q4GroupRows  = 16
	q4GroupBlock = q4GroupRows * q4Bytes   // 288: scales, then nibbles
	q8GroupBlock = q4GroupRows * q8Bytes   // 544: scales, then weights
	q5GroupBlock = q4GroupRows * q5_0Bytes // 352: scales, nibbles, fifth bits
	q5GroupHigh  = q4GroupBlock            // where the fifth bits start
	q4GroupNib   = 2 * q4GroupRows         // weights start after the scales
)

// packable reports whether a matrix fits a packed layout: Q4_0, Q8_0,
// Q5_0, Q4_K or Q6_K (packedk.go), rows in whole groups; F32, F16 or BF16
// (packedfloat.go), rows in whole units.
func packable(typ gguf.TensorType, rows, cols int) bool {
	switch typ {
	case typeQ4_0, typeQ8_0, gguf.Q5_0:
		return rows%q4GroupRows == 0 && cols%qk == 0
	case gguf.Q4_K, gguf.Q6_K:
		return rows%q4GroupRows == 0 && cols%qkK == 0
	case typeF32, typeF16, gguf.BF16:
		return rows%floatUnitRows == 0 && cols > 0
	}
	return false
}

// unitRows is how many rows of a packed matrix a product takes at a time.
func unitRows(typ gguf.TensorType) int {
	if isFloat(typ) {
		return floatUnitRows
	}
	return q4GroupRows
}

// packedBlock is the size of a packed group's block (a super-block for
// Q4_K) and the values it holds a row.
func packedBlock(typ gguf.TensorType) (bytes, values int) {
	switch typ {
	case typeQ8_0:
		return q8GroupBlock, qk
	case gguf.Q4_K:
		return q4KGroupBlock, qkK
	case gguf.Q6_K:
		return q6KGroupBlock, qkK
	case gguf.Q5_0:
		return q5GroupBlock, qk
	case typeF32, typeF16, gguf.BF16:
		return q4GroupRows * floatElemBytes(typ), 1
	}
	return q4GroupBlock, qk
}

// pack repacks a matrix for the packed kernels, its groups spread over
// the CPUs: a 7B model's weights are gigabytes.
func pack(typ gguf.TensorType, q []byte, rows, cols int) []byte {
	block, values := packedBlock(typ)
	out := make([]byte, rows/q4GroupRows*cols/values*block)
	groups := rows / q4GroupRows
	workers := min(runtime.GOMAXPROCS(0), groups)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for g := w; g < groups; g += workers {
				switch typ {
				case typeQ8_0:
					packQ8Group(out, q, g, cols)
				case gguf.Q4_K:
					packQ4KGroup(out, q, g, cols)
				case gguf.Q6_K:
					packQ6KGroup(out, q, g, cols)
				case gguf.Q5_0:
					packQ5Group(out, q, g, cols)
				case typeF32, typeF16, gguf.BF16:
					packFloatGroup(out, q, g, cols, floatElemBytes(typ))
				default:
					packQ4Group(out, q, g, cols)
				}
			}
		})
	}
	wg.Wait()
	return out
}

// packQ8Group repacks 16-row group g of Q8_0 rows into the layout above.
func packQ8Group(out, q []byte, g, cols int) {
	nb := cols / qk
	rowBytes := nb * q8Bytes
	for b := 0; b < nb; b++ {
		dst := out[(g*nb+b)*q8GroupBlock:][:q8GroupBlock]
		for r := 0; r < q4GroupRows; r++ {
			blk := q[(g*q4GroupRows+r)*rowBytes+b*q8Bytes:][:q8Bytes]
			copy(dst[2*r:], blk[:2])
			for run := 0; run < qk/4; run++ {
				for j := 0; j < 4; j++ {
					dst[q4GroupNib+64*run+4*r+j] = blk[2+4*run+j] + 128 // int8 to offset uint8
				}
			}
		}
	}
}

// packQ4Group repacks 16-row group g of Q4_0 rows into the layout above.
func packQ4Group(out, q []byte, g, cols int) {
	nb := cols / qk
	rowBytes := nb * q4Bytes
	var lo, hi [qk]byte // the nibbles of rows r and r+8
	for b := 0; b < nb; b++ {
		dst := out[(g*nb+b)*q4GroupBlock:][:q4GroupBlock]
		for r := 0; r < q4GroupRows; r++ {
			copy(dst[2*r:], q[(g*q4GroupRows+r)*rowBytes+b*q4Bytes:][:2])
		}
		for r := 0; r < q4GroupRows/2; r++ {
			nibbles(&lo, q[(g*q4GroupRows+r)*rowBytes+b*q4Bytes:][:q4Bytes])
			nibbles(&hi, q[(g*q4GroupRows+r+8)*rowBytes+b*q4Bytes:][:q4Bytes])
			for e := range qk {
				dst[q4GroupNib+32*(e/4)+4*r+e%4] = lo[e] | hi[e]<<4
			}
		}
	}
}

// packQ5Group repacks 16-row group g of Q5_0 rows into the layout above.
func packQ5Group(out, q []byte, g, cols int) {
	nb := cols / qk
	rowBytes := nb * q5_0Bytes
	var vals [q4GroupRows][qk]int8
	for b := 0; b < nb; b++ {
		dst := out[(g*nb+b)*q5GroupBlock:][:q5GroupBlock]
		for r := range q4GroupRows {
			blk := q[(g*q4GroupRows+r)*rowBytes+b*q5_0Bytes:][:q5_0Bytes]
			copy(dst[2*r:], blk[:2])
			bQ5_0.unpack(blk, &vals[r])
		}
		for e := range qk {
			run := e / 4
			for r := range q4GroupRows {
				u := byte(vals[r][e] + 16) // 0..31
				lane := 4*(r%8) + e%4
				dst[q4GroupNib+32*run+lane] |= (u & 15) << (4 * (r / 8))
				bit := 4*r + e%4
				dst[q5GroupHigh+8*run+bit/8] |= (u >> 4) << (bit % 8)
			}
		}
	}
}

// nibbles unpacks a Q4_0 block's 32 elements.
func nibbles(dst *[qk]byte, blk []byte) {
	for j := 0; j < qk/2; j++ {
		dst[j], dst[j+qk/2] = blk[2+j]&0xf, blk[2+j]>>4
	}
}

// scaleBias writes, for each block of x, its scale (float32 bits) and
// minus offset times the sum of its quants: the packed weights are
// unsigned, carrying offset (8 for Q4_0 nibbles, 128 for Q8_0), and
// starting each row's sum there takes it away.
func (v *q8Vec) scaleBias(offset int32) {
	nb := len(v.d)
	if cap(v.sb) < 2*nb {
		v.sb = make([]uint32, 2*nb)
	}
	v.sb = v.sb[:2*nb]
	for b := range nb {
		v.sb[2*b] = math.Float32bits(v.d[b])
		v.sb[2*b+1] = uint32(offset * v.bias[b]) // bias is minus the sum
	}
}

// q4r16x1Go is the portable form of the packed Q4_0 kernel: 16 rows of a
// packed group against one input, lane by lane as the assembly goes.
func q4r16x1Go(w []byte, x *q8Vec, out *[16]float32) { r16x1Go(w, typeQ4_0, x, out) }

// q8r16x1Go is q4r16x1Go for packed Q8_0.
func q8r16x1Go(w []byte, x *q8Vec, out *[16]float32) { r16x1Go(w, typeQ8_0, x, out) }

// q5r16x1Go is q4r16x1Go for packed Q5_0.
func q5r16x1Go(w []byte, x *q8Vec, out *[16]float32) { r16x1Go(w, gguf.Q5_0, x, out) }

func r16x1Go(w []byte, typ gguf.TensorType, x *q8Vec, out *[16]float32) {
	block, _ := packedBlock(typ)
	*out = [16]float32{}
	for b := range x.d {
		blk := w[b*block:][:block]
		xq := x.q[b*qk : (b+1)*qk]
		for r := range q4GroupRows {
			dot := int32(x.sb[2*b+1])
			for run := 0; run < qk/4; run++ {
				for j := 0; j < 4; j++ {
					var u byte // the weight, as the unsigned operand
					if typ == typeQ8_0 {
						u = blk[q4GroupNib+64*run+4*r+j]
					} else {
						u = blk[q4GroupNib+32*run+4*(r%8)+j]
						if r >= 8 {
							u >>= 4
						}
						u &= 0xf
						if bit := 4*r + j; typ == gguf.Q5_0 {
							u |= (blk[q5GroupHigh+8*run+bit/8] >> (bit % 8) & 1) << 4
						}
					}
					dot += int32(u) * int32(xq[4*run+j])
				}
			}
			ws := half.Table(binary.LittleEndian.Uint16(blk[2*r:]))
			out[r] += float32(dot) * (ws * x.d[b])
		}
	}
}

// rowsPacked computes out[b*m.Rows+r] = row r · ins[b] for the rows of
// units [lo, hi) of a packed matrix (unitRows).
func (m *Matrix) rowsPacked(out []float32, ins []vecInput, lo, hi int) {
	if isFloat(m.Type) {
		m.rowsPackedFloat(out, ins, lo, hi)
		return
	}
	rows := m.Rows
	block, values := packedBlock(m.Type)
	nb := m.Cols / values
	// inputs in tiles that stay in cache while the rows stream past, as
	// in rowsBatch; quantized inputs are a quarter of float ones, so a
	// tile holds 64 (a whole throughput-preset batch meets each weight once)
	const tile = 64
	for t := 0; t < len(ins); t += tile {
		end := min(t+tile, len(ins))
		for g := lo; g < hi; g++ {
			w := m.packed[g*nb*block : (g+1)*nb*block]
			r0 := g * q4GroupRows
			b := t
			for ; b+4 <= end; b += 4 {
				switch m.Type {
				case gguf.Q4_K:
					q4kr16x4(w, ins[b:b+4], out[b*rows+r0:], rows)
				case gguf.Q6_K:
					q6kr16x4(w, ins[b:b+4], out[b*rows+r0:], rows)
				case typeQ8_0:
					q8r16x4(w, ins[b:b+4], out[b*rows+r0:], rows)
				case gguf.Q5_0:
					q5r16x4(w, ins[b:b+4], out[b*rows+r0:], rows)
				default:
					q4r16x4(w, ins[b:b+4], out[b*rows+r0:], rows)
				}
			}
			for ; b < end; b++ {
				o := (*[q4GroupRows]float32)(out[b*rows+r0:])
				switch m.Type {
				case gguf.Q4_K:
					q4kr16x1(w, &ins[b].q8k, o)
				case gguf.Q6_K:
					q6kr16x1(w, &ins[b].q8k, o)
				case typeQ8_0:
					q8r16x1(w, &ins[b].q8, o)
				case gguf.Q5_0:
					q5r16x1(w, &ins[b].q8, o)
				default:
					q4r16x1(w, &ins[b].q8, o)
				}
			}
		}
	}
}

// packOffset is what a packed weight of the type carries over its value.
func packOffset(typ gguf.TensorType) int32 {
	switch typ {
	case typeQ8_0:
		return 128
	case gguf.Q5_0:
		return 16
	}
	return 8
}
