//go:build !purego

#include "textflag.h"

DATA kmask3<>+0(SB)/8, $0x0303030303030303
DATA kmask3<>+8(SB)/8, $0x0303030303030303
DATA kmask3<>+16(SB)/8, $0x0303030303030303
DATA kmask3<>+24(SB)/8, $0x0303030303030303
GLOBL kmask3<>(SB), RODATA|NOPTR, $32

DATA kmask30<>+0(SB)/8, $0x3030303030303030
DATA kmask30<>+8(SB)/8, $0x3030303030303030
DATA kmask30<>+16(SB)/8, $0x3030303030303030
DATA kmask30<>+24(SB)/8, $0x3030303030303030
GLOBL kmask30<>(SB), RODATA|NOPTR, $32

DATA knib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA knib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA knib<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA knib<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL knib<>(SB), RODATA|NOPTR, $32

DATA kones16<>+0(SB)/8, $0x0001000100010001
DATA kones16<>+8(SB)/8, $0x0001000100010001
DATA kones16<>+16(SB)/8, $0x0001000100010001
DATA kones16<>+24(SB)/8, $0x0001000100010001
GLOBL kones16<>(SB), RODATA|NOPTR, $32

DATA kallones<>+0(SB)/8, $0xffffffffffffffff
DATA kallones<>+8(SB)/8, $0xffffffffffffffff
DATA kallones<>+16(SB)/8, $0xffffffffffffffff
DATA kallones<>+24(SB)/8, $0xffffffffffffffff
GLOBL kallones<>(SB), RODATA|NOPTR, $32

DATA kmask16lo<>+0(SB)/8, $0x000f000f000f000f
DATA kmask16lo<>+8(SB)/8, $0x000f000f000f000f
DATA kmask16lo<>+16(SB)/8, $0x000f000f000f000f
DATA kmask16lo<>+24(SB)/8, $0x000f000f000f000f
GLOBL kmask16lo<>(SB), RODATA|NOPTR, $32

DATA kone8<>+0(SB)/8, $0x0101010101010101
DATA kone8<>+8(SB)/8, $0x0101010101010101
DATA kone8<>+16(SB)/8, $0x0101010101010101
DATA kone8<>+24(SB)/8, $0x0101010101010101
GLOBL kone8<>(SB), RODATA|NOPTR, $32

// d * xd, broadcast: the f16 at off(SI) times the float32 at 0(DX)
#define SCALE(off, X, Y) \
	MOVWLZX off(SI), AX \
	VMOVD AX, X \
	VCVTPH2PS X, X \
	VMULSS 0(DX), X, X \
	VBROADCASTSS X, Y

// Y8 holds 32 unsigned quants; add to Y6 the int32 sums of each against
// the activation quants at xoff(DI), times the int16 scale at soff(SP).
#define SUBBLOCK32(xoff, soff) \
	VPMADDUBSW xoff(DI), Y8, Y8 \
	VPBROADCASTW soff(SP), Y10 \
	VPMADDWD Y10, Y8, Y8 \
	VPADDD Y8, Y6, Y6

// out = the sum of an accumulator's eight lanes
#define HSUM8(y, x, out) \
	VEXTRACTF128 $1, y, X9 \
	VADDPS X9, x, x \
	VHADDPS x, x, x \
	VHADDPS x, x, x \
	VMOVSS x, out

// Y8 holds 32 unsigned quants: add each input's int32 sums against its
// activation quants at xoff (R9-R12) times the int16 scale at soff(SP)
#define SUB32x4(xoff, soff) \
	VPBROADCASTW soff(SP), Y9 \
	VPMADDUBSW xoff(R9), Y8, Y10 \
	VPMADDWD Y9, Y10, Y10 \
	VPADDD Y10, Y4, Y4 \
	VPMADDUBSW xoff(R10), Y8, Y10 \
	VPMADDWD Y9, Y10, Y10 \
	VPADDD Y10, Y5, Y5 \
	VPMADDUBSW xoff(R11), Y8, Y10 \
	VPMADDWD Y9, Y10, Y10 \
	VPADDD Y10, Y6, Y6 \
	VPMADDUBSW xoff(R12), Y8, Y10 \
	VPMADDWD Y9, Y10, Y10 \
	VPADDD Y10, Y7, Y7

// the 64 values of chunk c: low nibbles (sub-block 2c), then high
#define CHUNK64x4(qoff, xoff, soff) \
	VMOVDQU qoff(SI), Y13 \
	VPAND Y15, Y13, Y8 \
	SUB32x4(xoff, soff) \
	VPSRLW $4, Y13, Y8 \
	VPAND Y15, Y8, Y8 \
	SUB32x4(xoff+32, soff+2)

// one input's share of a block's mins: its 16-value sums (at bsums(R8),
// indexed by R14) paired, times the mins (Y13), times dmin (X12) and its
// block scale (at d(R8), indexed by R13), taken from acc
#define KMINS(bsums, d, acc) \
	MOVQ bsums(R8), DX \
	VMOVDQU (DX)(R14*1), Y10 \
	VPMADDWD Y14, Y10, Y10 \
	VPMULLD Y13, Y10, Y10 \
	VCVTDQ2PS Y10, Y10 \
	MOVQ d(R8), DX \
	VMULSS (DX)(R13*1), X12, X9 \
	VBROADCASTSS X9, Y9 \
	VFNMADD231PS Y10, Y9, acc

// the mins of one block against the four inputs
#define MINS4 \
	KMINS(16, 8, Y0) \
	KMINS(40, 32, Y1) \
	KMINS(64, 56, Y2) \
	KMINS(88, 80, Y3)

// the end of a block for one input of the four-input K-quant kernels:
// its int32 sums (sum) as floats, times d (X11) and its block scale (at
// d(R8), indexed by R13), into acc
#define KFINAL(sum, d, acc) \
	VCVTDQ2PS sum, sum \
	MOVQ d(R8), DX \
	VMULSS (DX)(R13*1), X11, X9 \
	VBROADCASTSS X9, Y9 \
	VFMADD231PS sum, Y9, acc

// the ends of a block for the four inputs (sums in Y4-Y7, into Y0-Y3)
#define KFINAL4 \
	KFINAL(Y4, 8, Y0) \
	KFINAL(Y5, 32, Y1) \
	KFINAL(Y6, 56, Y2) \
	KFINAL(Y7, 80, Y3)

// the four inputs' next super-block: quants (R9-R12), scales (R13), sums (R14)
#define KNEXT4 \
	ADDQ $256, R9 \
	ADDQ $256, R10 \
	ADDQ $256, R11 \
	ADDQ $256, R12 \
	ADDQ $4, R13 \
	ADDQ $32, R14

// the four-input kernels' results: Y0-Y3's sums to out[0:4]
#define STORE4 \
	MOVQ out+24(FP), AX \
	HSUM8(Y0, X0, 0(AX)) \
	HSUM8(Y1, X1, 4(AX)) \
	HSUM8(Y2, X2, 8(AX)) \
	HSUM8(Y3, X3, 12(AX)) \
	VZEROUPPER \
	RET

// Y8 holds 32 six-bit quants: add each input's sums of each 16 against its
// activation quants at xoff (R9-R12), times the int16 scales at soff(SP)
// and soff+2(SP)
#define SUB16x2x4(xoff, soff) \
	VPBROADCASTW soff(SP), X9 \
	VPBROADCASTW soff+2(SP), X10 \
	VINSERTI128 $1, X10, Y9, Y9 \
	VPMADDUBSW xoff(R9), Y8, Y10 \
	VPMADDWD Y9, Y10, Y10 \
	VPADDD Y10, Y4, Y4 \
	VPMADDUBSW xoff(R10), Y8, Y10 \
	VPMADDWD Y9, Y10, Y10 \
	VPADDD Y10, Y5, Y5 \
	VPMADDUBSW xoff(R11), Y8, Y10 \
	VPMADDWD Y9, Y10, Y10 \
	VPADDD Y10, Y6, Y6 \
	VPMADDUBSW xoff(R12), Y8, Y10 \
	VPMADDWD Y9, Y10, Y10 \
	VPADDD Y10, Y7, Y7

// one half (128 values) of a Q6_K block against the four inputs (the
// masks from memory: the registers hold the sums)
#define Q6HALFx4(lo, hi, xoff, soff) \
	VMOVDQU lo(SI), Y12 \
	VMOVDQU lo+32(SI), Y13 \
	VMOVDQU hi(SI), Y14 \
	VPAND Y15, Y12, Y8 \
	VPAND kmask3<>(SB), Y14, Y11 \
	VPSLLW $4, Y11, Y11 \
	VPOR Y11, Y8, Y8 \
	SUB16x2x4(xoff, soff) \
	VPAND Y15, Y13, Y8 \
	VPSLLW $2, Y14, Y11 \
	VPAND kmask30<>(SB), Y11, Y11 \
	VPOR Y11, Y8, Y8 \
	SUB16x2x4(xoff+32, soff+4) \
	VPSRLW $4, Y12, Y8 \
	VPAND Y15, Y8, Y8 \
	VPAND kmask30<>(SB), Y14, Y11 \
	VPOR Y11, Y8, Y8 \
	SUB16x2x4(xoff+64, soff+8) \
	VPSRLW $4, Y13, Y8 \
	VPAND Y15, Y8, Y8 \
	VPSRLW $2, Y14, Y11 \
	VPAND kmask30<>(SB), Y11, Y11 \
	VPOR Y11, Y8, Y8 \
	SUB16x2x4(xoff+96, soff+12)

// one input's int32 sums start at minus 2^shift times its 16-value sums
// (at bsums(R8), indexed by R14) times the block's scales (Y9): Q6_K's
// quants carry 32, Q3_K's 4, taken away so they multiply as unsigned
#define KOFFSET(bsums, sum, shift) \
	MOVQ bsums(R8), DX \
	VPMADDWD (DX)(R14*1), Y9, Y10 \
	VPSLLD shift, Y10, Y10 \
	VPXOR sum, sum, sum \
	VPSUBD Y10, sum, sum

// Q3_K's 2-bit plane (low bits at shift lo of the quants in Y7, high bit
// at shift hb of hmask in Y9) as values 0..7, against the activation
// quants at xoff(DI), the scales at soff(SP)
#define Q3PLANE(lo, hb, xoff, soff) \
	VPSRLW lo, Y7, Y8 \
	VPAND Y14, Y8, Y8 \
	VPSRLW hb, Y9, Y12 \
	VPAND kone8<>(SB), Y12, Y12 \
	VPSLLW $2, Y12, Y12 \
	VPOR Y12, Y8, Y8 \
	SUBBLOCK16x2(xoff, soff)

// Q3PLANE against four inputs: low bits from Y13, high bits from Y12
#define Q3PLANEx4(lo, hb, xoff, soff) \
	VPSRLW lo, Y13, Y8 \
	VPAND kmask3<>(SB), Y8, Y8 \
	VPSRLW hb, Y12, Y11 \
	VPAND kone8<>(SB), Y11, Y11 \
	VPSLLW $2, Y11, Y11 \
	VPOR Y11, Y8, Y8 \
	SUB16x2x4(xoff, soff)

// Y8 holds 32 six-bit quants (0..63); add to Y6 the int32 sums of each
// 16 against the activation quants at xoff(DI), times the int16 scales at
// soff(SP) (first 16) and soff+2(SP) (second 16).
#define SUBBLOCK16x2(xoff, soff) \
	VPMADDUBSW xoff(DI), Y8, Y8 \
	VPBROADCASTW soff(SP), X10 \
	VPBROADCASTW soff+2(SP), X11 \
	VINSERTI128 $1, X11, Y10, Y10 \
	VPMADDWD Y10, Y8, Y8 \
	VPADDD Y8, Y6, Y6

// one half (128 values) of a Q6_K block: low bits at lo(SI), high bits at
// hi(SI), activation quants from xoff(DI), scales from soff(SP)
#define Q6HALF(lo, hi, xoff, soff) \
	VMOVDQU lo(SI), Y7 \
	VMOVDQU lo+32(SI), Y12 \
	VMOVDQU hi(SI), Y9 \
	VPAND Y15, Y7, Y8 \
	VPAND Y14, Y9, Y11 \
	VPSLLW $4, Y11, Y11 \
	VPOR Y11, Y8, Y8 \
	SUBBLOCK16x2(xoff, soff) \
	VPAND Y15, Y12, Y8 \
	VPSLLW $2, Y9, Y11 \
	VPAND Y13, Y11, Y11 \
	VPOR Y11, Y8, Y8 \
	SUBBLOCK16x2(xoff+32, soff+4) \
	VPSRLW $4, Y7, Y8 \
	VPAND Y15, Y8, Y8 \
	VPAND Y13, Y9, Y11 \
	VPOR Y11, Y8, Y8 \
	SUBBLOCK16x2(xoff+64, soff+8) \
	VPSRLW $4, Y12, Y8 \
	VPAND Y15, Y8, Y8 \
	VPSRLW $2, Y9, Y11 \
	VPAND Y13, Y11, Y11 \
	VPOR Y11, Y8, Y8 \
	SUBBLOCK16x2(xoff+96, soff+12)

// one input of dot4Q5_0AVX2: Y4's quants against its activation quants
// at (q), plus twice its block bias (at bias(R8), indexed by R13), scaled
// by d (X8) times its block scale (at d(R8)) into acc
#define Q5INPUT(q, bias, d, acc) \
	VPMADDUBSW (q), Y4, Y5 \
	VPMADDWD Y7, Y5, Y5 \
	MOVQ bias(R8), DX \
	VPBROADCASTD (DX)(R13*1), Y10 \
	VPSLLD $1, Y10, Y10 \
	VPADDD Y10, Y5, Y5 \
	VCVTDQ2PS Y5, Y5 \
	MOVQ d(R8), DX \
	VMULSS (DX)(R13*1), X8, X6 \
	VBROADCASTSS X6, Y6 \
	VFMADD231PS Y5, Y6, acc

// Q5_K's fifth bits: bit `shift` of each byte of qh (Y11) ORed into the
// nibbles in Y8 as 16
#define FIFTH(shift) \
	VPSRLW shift, Y11, Y12 \
	VPAND kone8<>(SB), Y12, Y12 \
	VPSLLW $4, Y12, Y12 \
	VPOR Y12, Y8, Y8

// CHUNK64x4 for Q5_K: the fifth bits of the low nibbles are qh's bit lo,
// of the high ones bit hi
#define CHUNK64x4Q5(qoff, xoff, soff, lo, hi) \
	VMOVDQU qoff(SI), Y13 \
	VPAND Y15, Y13, Y8 \
	FIFTH(lo) \
	SUB32x4(xoff, soff) \
	VPSRLW $4, Y13, Y8 \
	VPAND Y15, Y8, Y8 \
	FIFTH(hi) \
	SUB32x4(xoff+32, soff+2)

// one chunk of 64 of dotQ5KPackedAVX2: nibbles at qoff(SI), fifth bits lo
// and hi of qh (Y11)
#define CHUNK64Q5(qoff, xoff, soff, lo, hi) \
	VMOVDQU qoff(SI), Y7 \
	VPAND Y15, Y7, Y8 \
	FIFTH(lo) \
	SUBBLOCK32(xoff, soff) \
	VPSRLW $4, Y7, Y8 \
	VPAND Y15, Y8, Y8 \
	FIFTH(hi) \
	SUBBLOCK32(xoff+32, soff+2)

// Q2_K's 2-bit plane (at shift sh of the quants in Y7) against the
// activation quants at xoff(DI), the scales at soff(SP)
#define Q2PLANE(sh, xoff, soff) \
	VPSRLW sh, Y7, Y8 \
	VPAND Y14, Y8, Y8 \
	SUBBLOCK16x2(xoff, soff)

// Q2PLANE against four inputs, the quants in Y13
#define Q2PLANEx4(sh, xoff, soff) \
	VPSRLW sh, Y13, Y8 \
	VPAND kmask3<>(SB), Y8, Y8 \
	SUB16x2x4(xoff, soff)

// Q2_K's 16 scale bytes (low nibble scale, high nibble min) at 0(SI):
// the scales as int16 to 0(SP), the mins as int16 in Y13
#define Q2SCALES \
	VPMOVZXBW 0(SI), Y13 \
	VPAND kmask16lo<>(SB), Y13, Y9 \
	VMOVDQU Y9, 0(SP) \
	VPSRLW $4, Y13, Y13

// one input's share of a Q2_K block's mins: its 16-value sums (at
// bsums(R8), indexed by R14) times the mins (int16, Y13), times dmin
// (X12) and its block scale (at d(R8), indexed by R13), taken from acc
#define Q2MINS(bsums, d, acc) \
	MOVQ bsums(R8), DX \
	VPMADDWD (DX)(R14*1), Y13, Y10 \
	VCVTDQ2PS Y10, Y10 \
	MOVQ d(R8), DX \
	VMULSS (DX)(R13*1), X12, X9 \
	VBROADCASTSS X9, Y9 \
	VFNMADD231PS Y10, Y9, acc

#define Q2MINS4 \
	Q2MINS(16, 8, Y0) \
	Q2MINS(40, 32, Y1) \
	Q2MINS(64, 56, Y2) \
	Q2MINS(88, 80, Y3)

// a 32-value block's nibbles at qoff(SI) as bytes 0..15 in Y4 (value j
// low in byte j, j+16 high), through X11; then, for Q5 formats, the 32
// fifth bits at hoff(SI) ORed in as 16 (constants from memory: the
// four-input kernels hold sums in the registers)
#define NIBBLES32(qoff) \
	VMOVDQU qoff(SI), X4 \
	VPSRLW $4, X4, X11 \
	VINSERTI128 $1, X11, Y4, Y4 \
	VPAND knib<>(SB), Y4, Y4

#define FIFTH32(hoff) \
	VPBROADCASTD hoff(SI), Y11 \
	VPSHUFB q5shuf<>(SB), Y11, Y11 \
	VPOR q5bits<>(SB), Y11, Y11 \
	VPCMPEQB kallones<>(SB), Y11, Y11 \
	VPAND q5x10<>(SB), Y11, Y11 \
	VPOR Y11, Y4, Y4

// one input of the four-input Q4_1/Q5_1 kernel: Y4's quants against its
// activation quants at (q), times d (X8) and its block scale (at d(R8),
// indexed by R13), into acc; the min (X9) times its block sum (at
// s(R8)) into the scalar macc
#define Q1INPUT(q, d, s, acc, macc) \
	VPMADDUBSW (q), Y4, Y5 \
	VPMADDWD kones16<>(SB), Y5, Y5 \
	VCVTDQ2PS Y5, Y5 \
	MOVQ d(R8), DX \
	VMULSS (DX)(R13*1), X8, X6 \
	VBROADCASTSS X6, Y6 \
	VFMADD231PS Y5, Y6, acc \
	MOVQ s(R8), DX \
	VMULSS (DX)(R13*1), X9, X6 \
	VADDSS X6, macc, macc

// out[k] = the sum of acc's lanes plus the scalar macc
#define STORE1(acc, xacc, macc, off) \
	VEXTRACTF128 $1, acc, X10 \
	VADDPS X10, xacc, xacc \
	VHADDPS xacc, xacc, xacc \
	VHADDPS xacc, xacc, xacc \
	VADDSS macc, xacc, xacc \
	VMOVSS xacc, off(AX)

// func dotQ4KPackedAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32
// w: nb Q4_K super-blocks as repackK leaves them (d, dmin, 8 scale
// bytes, 8 min bytes, 128 bytes of nibbles: in each 32, value l low, l+32
// high). Per block, integer sums of nibbles times quants scaled per 32,
// less the mins times the activation's 16-value sums (paired).
TEXT ·dotQ4KPackedAVX2(SB), NOSPLIT, $32-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ bsums+24(FP), BX
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VMOVDQU knib<>(SB), Y15
	VMOVDQU kones16<>(SB), Y14
q4kploop:
	CMPQ CX, $0
	JLE q4kpdone
	VPMOVZXBW 4(SI), X1
	VMOVDQU X1, 16(SP) // scales as int16
	VPMOVZXBD 12(SI), Y2
	VMOVDQU 0(BX), Y3
	VPMADDWD Y14, Y3, Y3
	VPMULLD Y2, Y3, Y3
	VCVTDQ2PS Y3, Y3
	SCALE(0, X4, Y4)
	SCALE(2, X5, Y5)
	VFNMADD231PS Y3, Y5, Y0
	VPXOR Y6, Y6, Y6
	VMOVDQU 20(SI), Y7
	VPAND Y15, Y7, Y8
	SUBBLOCK32(0, 16)
	VPSRLW $4, Y7, Y8
	VPAND Y15, Y8, Y8
	SUBBLOCK32(32, 18)
	VMOVDQU 52(SI), Y7
	VPAND Y15, Y7, Y8
	SUBBLOCK32(64, 20)
	VPSRLW $4, Y7, Y8
	VPAND Y15, Y8, Y8
	SUBBLOCK32(96, 22)
	VMOVDQU 84(SI), Y7
	VPAND Y15, Y7, Y8
	SUBBLOCK32(128, 24)
	VPSRLW $4, Y7, Y8
	VPAND Y15, Y8, Y8
	SUBBLOCK32(160, 26)
	VMOVDQU 116(SI), Y7
	VPAND Y15, Y7, Y8
	SUBBLOCK32(192, 28)
	VPSRLW $4, Y7, Y8
	VPAND Y15, Y8, Y8
	SUBBLOCK32(224, 30)
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y4, Y0
	ADDQ $148, SI
	ADDQ $256, DI
	ADDQ $4, DX
	ADDQ $32, BX
	DECQ CX
	JMP q4kploop
q4kpdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// func dot4Q4KPackedAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)
// One repacked Q4_K row against four Q8_K inputs: the row's scales load
// and its nibbles unpack once for the four (prompts, batches).
TEXT ·dot4Q4KPackedAVX2(SB), NOSPLIT, $32-32
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), R8
	MOVQ nb+16(FP), CX
	MOVQ 0(R8), R9
	MOVQ 24(R8), R10
	MOVQ 48(R8), R11
	MOVQ 72(R8), R12
	XORQ R13, R13 // block * 4: offset in xd
	XORQ R14, R14 // block * 32: offset in bsums
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VMOVDQU knib<>(SB), Y15
	VMOVDQU kones16<>(SB), Y14
q4kx4loop:
	CMPQ CX, $0
	JLE q4kx4done
	VPMOVZXBW 4(SI), X8
	VMOVDQU X8, 0(SP)
	VPMOVZXBD 12(SI), Y13
	MOVWLZX 2(SI), AX
	VMOVD AX, X12
	VCVTPH2PS X12, X12
	MINS4
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	CHUNK64x4(20, 0, 0)
	CHUNK64x4(52, 64, 4)
	CHUNK64x4(84, 128, 8)
	CHUNK64x4(116, 192, 12)
	MOVWLZX 0(SI), AX
	VMOVD AX, X11
	VCVTPH2PS X11, X11
	KFINAL4
	ADDQ $148, SI
	KNEXT4
	DECQ CX
	JMP q4kx4loop
q4kx4done:
	STORE4

// func dot4Q6KAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)
// One Q6_K row against four Q8_K inputs: the row's quants unpack once for
// the four.
TEXT ·dot4Q6KAVX2(SB), NOSPLIT, $32-32
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), R8
	MOVQ nb+16(FP), CX
	MOVQ 0(R8), R9
	MOVQ 24(R8), R10
	MOVQ 48(R8), R11
	MOVQ 72(R8), R12
	XORQ R13, R13
	XORQ R14, R14
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VMOVDQU knib<>(SB), Y15
q6kx4loop:
	CMPQ CX, $0
	JLE q6kx4done
	VPMOVSXBW 192(SI), Y9
	VMOVDQU Y9, 0(SP) // scales as int16
	KOFFSET(16, Y4, $5)
	KOFFSET(40, Y5, $5)
	KOFFSET(64, Y6, $5)
	KOFFSET(88, Y7, $5)
	Q6HALFx4(0, 128, 0, 0)
	Q6HALFx4(64, 160, 128, 16)
	MOVWLZX 208(SI), AX
	VMOVD AX, X11
	VCVTPH2PS X11, X11
	KFINAL4
	ADDQ $210, SI
	KNEXT4
	DECQ CX
	JMP q6kx4loop
q6kx4done:
	STORE4

// func dotQ6KAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32
// w: nb Q6_K super-blocks (ql[128], qh[64], int8 scales[16], d). The
// quants carry 32: multiplied raw (0..63), and 32 times each 16-value
// activation sum, scaled, is taken away.
TEXT ·dotQ6KAVX2(SB), NOSPLIT, $32-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ bsums+24(FP), BX
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VMOVDQU knib<>(SB), Y15
	VMOVDQU kmask3<>(SB), Y14
	VMOVDQU kmask30<>(SB), Y13
q6kloop:
	CMPQ CX, $0
	JLE q6kdone
	VPMOVSXBW 192(SI), Y1
	VMOVDQU Y1, 0(SP) // scales as int16
	VPMADDWD 0(BX), Y1, Y2
	VPSLLD $5, Y2, Y2
	VPXOR Y6, Y6, Y6
	VPSUBD Y2, Y6, Y6
	SCALE(208, X4, Y4)
	Q6HALF(0, 128, 0, 0)
	Q6HALF(64, 160, 128, 16)
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y4, Y0
	ADDQ $210, SI
	ADDQ $256, DI
	ADDQ $4, DX
	ADDQ $32, BX
	DECQ CX
	JMP q6kloop
q6kdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// byte i of a broadcast 32-bit word: byte i/8 of the word
DATA q5shuf<>+0(SB)/8, $0x0000000000000000
DATA q5shuf<>+8(SB)/8, $0x0101010101010101
DATA q5shuf<>+16(SB)/8, $0x0202020202020202
DATA q5shuf<>+24(SB)/8, $0x0303030303030303
GLOBL q5shuf<>(SB), RODATA|NOPTR, $32

// every bit but bit i%8 of byte i
DATA q5bits<>+0(SB)/8, $0x7fbfdfeff7fbfdfe
DATA q5bits<>+8(SB)/8, $0x7fbfdfeff7fbfdfe
DATA q5bits<>+16(SB)/8, $0x7fbfdfeff7fbfdfe
DATA q5bits<>+24(SB)/8, $0x7fbfdfeff7fbfdfe
GLOBL q5bits<>(SB), RODATA|NOPTR, $32

DATA q5x10<>+0(SB)/8, $0x1010101010101010
DATA q5x10<>+8(SB)/8, $0x1010101010101010
DATA q5x10<>+16(SB)/8, $0x1010101010101010
DATA q5x10<>+24(SB)/8, $0x1010101010101010
GLOBL q5x10<>(SB), RODATA|NOPTR, $32

// func dotQ5_0AVX2(w *byte, xq *int8, xd *float32, bias *int32, nb int) float32
// w: nb Q5_0 blocks (f16 d, 32 fifth bits, 16 bytes of nibbles as Q4_0).
// As dotQ4AVX2, with the fifth bit spread to a byte each and ORed in as
// 16: raw quants 0..31 multiply the activation, and twice the bias in each
// of 8 lanes takes away the 16 each carries.
TEXT ·dotQ5_0AVX2(SB), NOSPLIT, $0-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ bias+24(FP), R8
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VMOVDQU kones16<>(SB), Y7
	VMOVDQU knib<>(SB), Y9
	VMOVDQU q5shuf<>(SB), Y11
	VMOVDQU q5bits<>(SB), Y12
	VMOVDQU q5x10<>(SB), Y13
	VPCMPEQB Y14, Y14, Y14 // all ones
q5loop:
	CMPQ CX, $0
	JLE q5done
	SCALE(0, X1, Y1)
	VMOVDQU 6(SI), X2
	VPSRLW $4, X2, X3
	VINSERTI128 $1, X3, Y2, Y2
	VPAND Y9, Y2, Y2
	VPBROADCASTD 2(SI), Y4
	VPSHUFB Y11, Y4, Y4
	VPOR Y12, Y4, Y4
	VPCMPEQB Y14, Y4, Y4
	VPAND Y13, Y4, Y4
	VPOR Y4, Y2, Y2
	VPMADDUBSW 0(DI), Y2, Y6
	VPMADDWD Y7, Y6, Y6
	VPBROADCASTD 0(R8), Y10
	VPSLLD $1, Y10, Y10
	VPADDD Y10, Y6, Y6
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y1, Y0
	ADDQ $22, SI
	ADDQ $32, DI
	ADDQ $4, DX
	ADDQ $4, R8
	DECQ CX
	JMP q5loop
q5done:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// func dot4Q5_0AVX2(w *byte, in *[4]qInput, nb int, out *[4]float32)
// One Q5_0 row against four Q8_0 inputs, as dotQ5_0AVX2: the row's quants
// unpack once for the four.
TEXT ·dot4Q5_0AVX2(SB), NOSPLIT, $0-32
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), R8
	MOVQ nb+16(FP), CX
	MOVQ 0(R8), R9
	MOVQ 24(R8), R10
	MOVQ 48(R8), R11
	MOVQ 72(R8), R12
	XORQ R13, R13 // block * 4: offset in d and bias
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VMOVDQU kones16<>(SB), Y7
	VMOVDQU knib<>(SB), Y9
	VMOVDQU q5shuf<>(SB), Y12
	VMOVDQU q5bits<>(SB), Y13
	VPCMPEQB Y14, Y14, Y14
	VMOVDQU q5x10<>(SB), Y15
q5x4loop:
	CMPQ CX, $0
	JLE q5x4done
	MOVWLZX 0(SI), AX
	VMOVD AX, X8
	VCVTPH2PS X8, X8
	VMOVDQU 6(SI), X4
	VPSRLW $4, X4, X11
	VINSERTI128 $1, X11, Y4, Y4
	VPAND Y9, Y4, Y4
	VPBROADCASTD 2(SI), Y11
	VPSHUFB Y12, Y11, Y11
	VPOR Y13, Y11, Y11
	VPCMPEQB Y14, Y11, Y11
	VPAND Y15, Y11, Y11
	VPOR Y11, Y4, Y4
	Q5INPUT(R9, 16, 8, Y0)
	Q5INPUT(R10, 40, 32, Y1)
	Q5INPUT(R11, 64, 56, Y2)
	Q5INPUT(R12, 88, 80, Y3)
	ADDQ $22, SI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $4, R13
	DECQ CX
	JMP q5x4loop
q5x4done:
	STORE4

// func dotQ5KPackedAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32
// w: nb Q5_K super-blocks as repackK leaves them (d, dmin, 8 scale bytes,
// 8 min bytes, qh[32], 128 bytes of nibbles): dotQ4KPackedAVX2 with each
// quant's fifth bit from qh (bit 2c for chunk c's low nibbles, 2c+1 for
// its high ones).
TEXT ·dotQ5KPackedAVX2(SB), NOSPLIT, $32-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ bsums+24(FP), BX
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VMOVDQU knib<>(SB), Y15
	VMOVDQU kones16<>(SB), Y14
q5kploop:
	CMPQ CX, $0
	JLE q5kpdone
	VPMOVZXBW 4(SI), X1
	VMOVDQU X1, 16(SP) // scales as int16
	VPMOVZXBD 12(SI), Y2
	VMOVDQU 0(BX), Y3
	VPMADDWD Y14, Y3, Y3
	VPMULLD Y2, Y3, Y3
	VCVTDQ2PS Y3, Y3
	SCALE(0, X4, Y4)
	SCALE(2, X5, Y5)
	VFNMADD231PS Y3, Y5, Y0
	VMOVDQU 20(SI), Y11 // qh
	VPXOR Y6, Y6, Y6
	CHUNK64Q5(52, 0, 16, $0, $1)
	CHUNK64Q5(84, 64, 20, $2, $3)
	CHUNK64Q5(116, 128, 24, $4, $5)
	CHUNK64Q5(148, 192, 28, $6, $7)
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y4, Y0
	ADDQ $180, SI
	ADDQ $256, DI
	ADDQ $4, DX
	ADDQ $32, BX
	DECQ CX
	JMP q5kploop
q5kpdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// func dot4Q5KPackedAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)
// One repacked Q5_K row against four Q8_K inputs (dot4Q4KPackedAVX2 with
// the fifth bits).
TEXT ·dot4Q5KPackedAVX2(SB), NOSPLIT, $32-32
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), R8
	MOVQ nb+16(FP), CX
	MOVQ 0(R8), R9
	MOVQ 24(R8), R10
	MOVQ 48(R8), R11
	MOVQ 72(R8), R12
	XORQ R13, R13
	XORQ R14, R14
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VMOVDQU knib<>(SB), Y15
	VMOVDQU kones16<>(SB), Y14
q5kx4loop:
	CMPQ CX, $0
	JLE q5kx4done
	VPMOVZXBW 4(SI), X8
	VMOVDQU X8, 0(SP)
	VPMOVZXBD 12(SI), Y13
	MOVWLZX 2(SI), AX
	VMOVD AX, X12
	VCVTPH2PS X12, X12
	MINS4
	VMOVDQU 20(SI), Y11 // qh
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	CHUNK64x4Q5(52, 0, 0, $0, $1)
	CHUNK64x4Q5(84, 64, 4, $2, $3)
	CHUNK64x4Q5(116, 128, 8, $4, $5)
	CHUNK64x4Q5(148, 192, 12, $6, $7)
	MOVWLZX 0(SI), AX
	VMOVD AX, X11
	VCVTPH2PS X11, X11
	KFINAL4
	ADDQ $180, SI
	KNEXT4
	DECQ CX
	JMP q5kx4loop
q5kx4done:
	STORE4

// func dotQ3KPackedAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32
// w: nb Q3_K super-blocks as repackQ3K leaves them (d, 16 signed scale
// bytes, hmask[32], qs[64]). Each quant (2 low bits and a high bit, less
// 4) multiplies as 0..7 unsigned, and 4 times each 16-value activation
// sum, scaled, is taken away.
TEXT ·dotQ3KPackedAVX2(SB), NOSPLIT, $32-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ bsums+24(FP), BX
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VMOVDQU kmask3<>(SB), Y14
q3kploop:
	CMPQ CX, $0
	JLE q3kpdone
	VPMOVSXBW 2(SI), Y1
	VMOVDQU Y1, 0(SP) // scales as int16
	VPMADDWD 0(BX), Y1, Y2
	VPSLLD $2, Y2, Y2
	VPXOR Y6, Y6, Y6
	VPSUBD Y2, Y6, Y6
	SCALE(0, X4, Y4)
	VMOVDQU 18(SI), Y9 // hmask
	VMOVDQU 50(SI), Y7
	Q3PLANE($0, $0, 0, 0)
	Q3PLANE($2, $1, 32, 4)
	Q3PLANE($4, $2, 64, 8)
	Q3PLANE($6, $3, 96, 12)
	VMOVDQU 82(SI), Y7
	Q3PLANE($0, $4, 128, 16)
	Q3PLANE($2, $5, 160, 20)
	Q3PLANE($4, $6, 192, 24)
	Q3PLANE($6, $7, 224, 28)
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y4, Y0
	ADDQ $114, SI
	ADDQ $256, DI
	ADDQ $4, DX
	ADDQ $32, BX
	DECQ CX
	JMP q3kploop
q3kpdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// func dot4Q3KPackedAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)
// One repacked Q3_K row against four Q8_K inputs.
TEXT ·dot4Q3KPackedAVX2(SB), NOSPLIT, $32-32
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), R8
	MOVQ nb+16(FP), CX
	MOVQ 0(R8), R9
	MOVQ 24(R8), R10
	MOVQ 48(R8), R11
	MOVQ 72(R8), R12
	XORQ R13, R13
	XORQ R14, R14
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
q3kx4loop:
	CMPQ CX, $0
	JLE q3kx4done
	VPMOVSXBW 2(SI), Y9
	VMOVDQU Y9, 0(SP) // scales as int16
	KOFFSET(16, Y4, $2)
	KOFFSET(40, Y5, $2)
	KOFFSET(64, Y6, $2)
	KOFFSET(88, Y7, $2)
	VMOVDQU 18(SI), Y12 // hmask
	VMOVDQU 50(SI), Y13
	Q3PLANEx4($0, $0, 0, 0)
	Q3PLANEx4($2, $1, 32, 4)
	Q3PLANEx4($4, $2, 64, 8)
	Q3PLANEx4($6, $3, 96, 12)
	VMOVDQU 82(SI), Y13
	Q3PLANEx4($0, $4, 128, 16)
	Q3PLANEx4($2, $5, 160, 20)
	Q3PLANEx4($4, $6, 192, 24)
	Q3PLANEx4($6, $7, 224, 28)
	MOVWLZX 0(SI), AX
	VMOVD AX, X11
	VCVTPH2PS X11, X11
	KFINAL4
	ADDQ $114, SI
	KNEXT4
	DECQ CX
	JMP q3kx4loop
q3kx4done:
	STORE4

// func dotQ2KAVX2(w *byte, xq *int8, xd *float32, bsums *int16, nb int) float32
// w: nb Q2_K super-blocks (scales[16]: low nibble scale, high nibble
// min; qs[64], 2 bits a value; d, dmin). Per block, integer sums of
// quants times activation quants scaled per 16, less the mins times the
// activation's 16-value sums.
TEXT ·dotQ2KAVX2(SB), NOSPLIT, $32-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ bsums+24(FP), BX
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VMOVDQU kmask3<>(SB), Y14
q2kloop:
	CMPQ CX, $0
	JLE q2kdone
	Q2SCALES
	VPMADDWD 0(BX), Y13, Y3
	VCVTDQ2PS Y3, Y3
	SCALE(80, X4, Y4)
	SCALE(82, X5, Y5)
	VFNMADD231PS Y3, Y5, Y0
	VPXOR Y6, Y6, Y6
	VMOVDQU 16(SI), Y7
	Q2PLANE($0, 0, 0)
	Q2PLANE($2, 32, 4)
	Q2PLANE($4, 64, 8)
	Q2PLANE($6, 96, 12)
	VMOVDQU 48(SI), Y7
	Q2PLANE($0, 128, 16)
	Q2PLANE($2, 160, 20)
	Q2PLANE($4, 192, 24)
	Q2PLANE($6, 224, 28)
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y4, Y0
	ADDQ $84, SI
	ADDQ $256, DI
	ADDQ $4, DX
	ADDQ $32, BX
	DECQ CX
	JMP q2kloop
q2kdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// func dot4Q2KAVX2(w *byte, in *[4]kInput, nb int, out *[4]float32)
// One Q2_K row against four Q8_K inputs.
TEXT ·dot4Q2KAVX2(SB), NOSPLIT, $32-32
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), R8
	MOVQ nb+16(FP), CX
	MOVQ 0(R8), R9
	MOVQ 24(R8), R10
	MOVQ 48(R8), R11
	MOVQ 72(R8), R12
	XORQ R13, R13
	XORQ R14, R14
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
q2kx4loop:
	CMPQ CX, $0
	JLE q2kx4done
	Q2SCALES
	MOVWLZX 82(SI), AX
	VMOVD AX, X12
	VCVTPH2PS X12, X12
	Q2MINS4
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VMOVDQU 16(SI), Y13
	Q2PLANEx4($0, 0, 0)
	Q2PLANEx4($2, 32, 4)
	Q2PLANEx4($4, 64, 8)
	Q2PLANEx4($6, 96, 12)
	VMOVDQU 48(SI), Y13
	Q2PLANEx4($0, 128, 16)
	Q2PLANEx4($2, 160, 20)
	Q2PLANEx4($4, 192, 24)
	Q2PLANEx4($6, 224, 28)
	MOVWLZX 80(SI), AX
	VMOVD AX, X11
	VCVTPH2PS X11, X11
	KFINAL4
	ADDQ $84, SI
	KNEXT4
	DECQ CX
	JMP q2kx4loop
q2kx4done:
	STORE4

// func dotQ5_1AVX2(w *byte, xq *int8, xd *float32, xs *float32, nb int) float32
// w: nb Q5_1 blocks (d, m, 32 fifth bits, 16 bytes of nibbles): d times
// the quants (0..31) against a Q8_1 input, plus m times the input's block
// sum s.
TEXT ·dotQ5_1AVX2(SB), NOSPLIT, $0-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ xs+24(FP), R8
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS X15, X15, X15
	VMOVDQU kones16<>(SB), Y7
dotQ5_1AVX2loop:
	CMPQ CX, $0
	JLE dotQ5_1AVX2done
	SCALE(0, X1, Y1)
	MOVWLZX 2(SI), AX
	VMOVD AX, X2
	VCVTPH2PS X2, X2
	VMULSS 0(R8), X2, X2
	VADDSS X2, X15, X15
	NIBBLES32(8)
	FIFTH32(4)
	VPMADDUBSW 0(DI), Y4, Y6
	VPMADDWD Y7, Y6, Y6
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y1, Y0
	ADDQ $24, SI
	ADDQ $32, DI
	ADDQ $4, DX
	ADDQ $4, R8
	DECQ CX
	JMP dotQ5_1AVX2loop
dotQ5_1AVX2done:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VADDSS X15, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// func dotQ4_1AVX2(w *byte, xq *int8, xd *float32, xs *float32, nb int) float32
// w: nb Q4_1 blocks (d, m, 16 bytes of nibbles), as dotQ5_1AVX2 without
// the fifth bits.
TEXT ·dotQ4_1AVX2(SB), NOSPLIT, $0-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ xs+24(FP), R8
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS X15, X15, X15
	VMOVDQU kones16<>(SB), Y7
dotQ4_1AVX2loop:
	CMPQ CX, $0
	JLE dotQ4_1AVX2done
	SCALE(0, X1, Y1)
	MOVWLZX 2(SI), AX
	VMOVD AX, X2
	VCVTPH2PS X2, X2
	VMULSS 0(R8), X2, X2
	VADDSS X2, X15, X15
	NIBBLES32(4)
	VPMADDUBSW 0(DI), Y4, Y6
	VPMADDWD Y7, Y6, Y6
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y1, Y0
	ADDQ $20, SI
	ADDQ $32, DI
	ADDQ $4, DX
	ADDQ $4, R8
	DECQ CX
	JMP dotQ4_1AVX2loop
dotQ4_1AVX2done:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VADDSS X15, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// func dot4Q5_1AVX2(w *byte, in *[4]qInput, nb int, out *[4]float32)
// One row against four Q8_1 inputs: the row's quants unpack once for the
// four.
TEXT ·dot4Q5_1AVX2(SB), NOSPLIT, $0-32
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), R8
	MOVQ nb+16(FP), CX
	MOVQ 0(R8), R9
	MOVQ 24(R8), R10
	MOVQ 48(R8), R11
	MOVQ 72(R8), R12
	XORQ R13, R13
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS X12, X12, X12
	VXORPS X13, X13, X13
	VXORPS X14, X14, X14
	VXORPS X15, X15, X15
dot4Q5_1AVX2loop:
	CMPQ CX, $0
	JLE dot4Q5_1AVX2done
	MOVWLZX 0(SI), AX
	VMOVD AX, X8
	VCVTPH2PS X8, X8
	MOVWLZX 2(SI), AX
	VMOVD AX, X9
	VCVTPH2PS X9, X9
	NIBBLES32(8)
	FIFTH32(4)
	Q1INPUT(R9, 8, 16, Y0, X12)
	Q1INPUT(R10, 32, 40, Y1, X13)
	Q1INPUT(R11, 56, 64, Y2, X14)
	Q1INPUT(R12, 80, 88, Y3, X15)
	ADDQ $24, SI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $4, R13
	DECQ CX
	JMP dot4Q5_1AVX2loop
dot4Q5_1AVX2done:
	MOVQ out+24(FP), AX
	STORE1(Y0, X0, X12, 0)
	STORE1(Y1, X1, X13, 4)
	STORE1(Y2, X2, X14, 8)
	STORE1(Y3, X3, X15, 12)
	VZEROUPPER
	RET

// func dot4Q4_1AVX2(w *byte, in *[4]qInput, nb int, out *[4]float32)
// One row against four Q8_1 inputs: the row's quants unpack once for the
// four.
TEXT ·dot4Q4_1AVX2(SB), NOSPLIT, $0-32
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), R8
	MOVQ nb+16(FP), CX
	MOVQ 0(R8), R9
	MOVQ 24(R8), R10
	MOVQ 48(R8), R11
	MOVQ 72(R8), R12
	XORQ R13, R13
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS X12, X12, X12
	VXORPS X13, X13, X13
	VXORPS X14, X14, X14
	VXORPS X15, X15, X15
dot4Q4_1AVX2loop:
	CMPQ CX, $0
	JLE dot4Q4_1AVX2done
	MOVWLZX 0(SI), AX
	VMOVD AX, X8
	VCVTPH2PS X8, X8
	MOVWLZX 2(SI), AX
	VMOVD AX, X9
	VCVTPH2PS X9, X9
	NIBBLES32(4)
	Q1INPUT(R9, 8, 16, Y0, X12)
	Q1INPUT(R10, 32, 40, Y1, X13)
	Q1INPUT(R11, 56, 64, Y2, X14)
	Q1INPUT(R12, 80, 88, Y3, X15)
	ADDQ $20, SI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $4, R13
	DECQ CX
	JMP dot4Q4_1AVX2loop
dot4Q4_1AVX2done:
	MOVQ out+24(FP), AX
	STORE1(Y0, X0, X12, 0)
	STORE1(Y1, X1, X13, 4)
	STORE1(Y2, X2, X14, 8)
	STORE1(Y3, X3, X15, 12)
	VZEROUPPER
	RET

// func dotBF16AVX2(a *byte, b *float32, n int) float32
// n bfloat16 values (n a multiple of 32) against n floats: each bfloat16
// widens to the float32 whose top half it is.
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
bf16loop:
	CMPQ CX, $0
	JLE bf16done
	VPMOVZXWD 0(SI), Y4
	VPMOVZXWD 16(SI), Y5
	VPMOVZXWD 32(SI), Y6
	VPMOVZXWD 48(SI), Y7
	VPSLLD $16, Y4, Y4
	VPSLLD $16, Y5, Y5
	VPSLLD $16, Y6, Y6
	VPSLLD $16, Y7, Y7
	VFMADD231PS 0(DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP bf16loop
bf16done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dot4BF16AVX2(w *byte, x *float32, stride, n int, out *[4]float32)
// One BF16 row (n values, a multiple of 8) against four float inputs, x
// and the three after it stride floats apart: each 8 values widen once
// for the four.
TEXT ·dot4BF16AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	MOVQ n+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
d4bf16loop:
	CMPQ CX, $0
	JLE d4bf16done
	VPMOVZXWD (SI), Y4
	VPSLLD $16, Y4, Y4
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS (DI)(R8*1), Y4, Y1
	VFMADD231PS (DI)(R9*1), Y4, Y2
	VFMADD231PS (DI)(R10*1), Y4, Y3
	ADDQ $16, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP d4bf16loop
d4bf16done:
	MOVQ out+32(FP), AX
	HSUM8(Y0, X0, 0(AX))
	HSUM8(Y1, X1, 4(AX))
	HSUM8(Y2, X2, 8(AX))
	HSUM8(Y3, X3, 12(AX))
	VZEROUPPER
	RET
