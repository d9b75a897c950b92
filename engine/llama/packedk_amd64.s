//go:build !purego

#include "textflag.h"

// The packed Q4_K and Q6_K kernels (layouts in packedk.go). Need AVX512F,
// AVX512BW, AVX512VL and AVX512_VNNI.

DATA k4nib<>+0(SB)/4, $0x0f0f0f0f
GLOBL k4nib<>(SB), RODATA|NOPTR, $4

// the upper 256 bits of a run's register take the high nibbles (rows 8-15)
DATA k4shift<>+0(SB)/8, $0
DATA k4shift<>+8(SB)/8, $0
DATA k4shift<>+16(SB)/8, $0
DATA k4shift<>+24(SB)/8, $0
DATA k4shift<>+32(SB)/8, $0x0000000400000004
DATA k4shift<>+40(SB)/8, $0x0000000400000004
DATA k4shift<>+48(SB)/8, $0x0000000400000004
DATA k4shift<>+56(SB)/8, $0x0000000400000004
GLOBL k4shift<>(SB), RODATA|NOPTR, $64

DATA k6bit4<>+0(SB)/4, $0x10101010
GLOBL k6bit4<>(SB), RODATA|NOPTR, $4
DATA k6bit5<>+0(SB)/4, $0x20202020
GLOBL k6bit5<>(SB), RODATA|NOPTR, $4

// The run of nibbles at off(SI): lane r of zw gets row r's four (Z25 the
// nibble mask, Z26 the shifts).
#define NIBRUN(off, zw) \
	VBROADCASTI64X4 off(SI), zw \
	VPSRLVD Z26, zw, zw \
	VPANDD Z25, zw, zw

// Run g of sub-block s: lane r of zw gets row r's four values.
#define KRUN(s, g, zw) NIBRUN((320+256*s+32*g), zw)

// The four inputs' 16 sums, Z12-Z15, to out + k*ostride bytes.
#define STORE4 \
	MOVQ out+24(FP), AX \
	MOVQ ostride+32(FP), BX \
	VMOVUPS Z12, (AX) \
	VMOVUPS Z13, (AX)(BX*1) \
	VMOVUPS Z14, (AX)(BX*2) \
	LEAQ (AX)(BX*2), AX \
	VMOVUPS Z15, (AX)(BX*1) \
	VZEROUPPER \
	RET

// Sub-block s of the block at SI: its eight runs in Z16-Z23, its rows'
// scales in Z28; the lines of the block two ahead that lie where this
// sub-block does are fetched into cache (the hardware's own prefetch
// leaves a group's first pass waiting on memory, as with packed Q4_0).
#define KSUBBLOCK(s) \
	PREFETCHT0 (4736+296*s)(SI) \
	PREFETCHT0 (4800+296*s)(SI) \
	PREFETCHT0 (4864+296*s)(SI) \
	PREFETCHT0 (4928+296*s)(SI) \
	PREFETCHT0 (4992+296*s)(SI) \
	KRUN(s, 0, Z16) \
	KRUN(s, 1, Z17) \
	KRUN(s, 2, Z18) \
	KRUN(s, 3, Z19) \
	KRUN(s, 4, Z20) \
	KRUN(s, 5, Z21) \
	KRUN(s, 6, Z22) \
	KRUN(s, 7, Z23) \
	VPMOVZXBD (64+16*s)(SI), Z28

// Sub-block s's 16 sums against the input whose quants are at xq, in two
// chains, times the rows' scales, into iacc.
#define KSUM(s, xq, t1, t2, iacc) \
	VPXORD t1, t1, t1 \
	VPXORD t2, t2, t2 \
	VPDPBUSD.BCST (32*s)(xq), Z16, t1 \
	VPDPBUSD.BCST (32*s+4)(xq), Z17, t2 \
	VPDPBUSD.BCST (32*s+8)(xq), Z18, t1 \
	VPDPBUSD.BCST (32*s+12)(xq), Z19, t2 \
	VPDPBUSD.BCST (32*s+16)(xq), Z20, t1 \
	VPDPBUSD.BCST (32*s+20)(xq), Z21, t2 \
	VPDPBUSD.BCST (32*s+24)(xq), Z22, t1 \
	VPDPBUSD.BCST (32*s+28)(xq), Z23, t2 \
	VPADDD t2, t1, t1 \
	VPMULLD Z28, t1, t1 \
	VPADDD t1, iacc, iacc

// The block's mins (Z16-Z19, pairs of sub-blocks as int16) against the
// input's 32-value sums at s32 into macc; then f gets d*xd*iacc less
// dmin*xd*macc, xd the input's scale at xd (rows' d in Z24, dmin in Z27).
#define KFINAL(s32, xd, iacc, macc, f) \
	VPXORD macc, macc, macc \
	VPDPWSSD.BCST 0(s32), Z16, macc \
	VPDPWSSD.BCST 4(s32), Z17, macc \
	VPDPWSSD.BCST 8(s32), Z18, macc \
	VPDPWSSD.BCST 12(s32), Z19, macc \
	VCVTDQ2PS iacc, iacc \
	VCVTDQ2PS macc, macc \
	VMULPS.BCST xd, Z24, Z29 \
	VFMADD231PS iacc, Z29, f \
	VMULPS.BCST xd, Z27, Z30 \
	VFNMADD231PS macc, Z30, f

// The block's mins and row scales, once for every input.
#define KSCALES \
	VPMOVZXBW 192(SI), Z16 \
	VPMOVZXBW 224(SI), Z17 \
	VPMOVZXBW 256(SI), Z18 \
	VPMOVZXBW 288(SI), Z19 \
	VCVTPH2PS 0(SI), Z24 \
	VCVTPH2PS 32(SI), Z27

// func q4kr16x4VNNI(w *byte, in *[4]kInput, nb int, out *float32, ostride int)
// Sixteen packed Q4_K rows (a group, nb super-blocks) against four Q8_K
// inputs: the 16 floats at out + k*ostride bytes get row r · input k.
TEXT ·q4kr16x4VNNI(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), AX
	MOVQ 0(AX), R8
	MOVQ 24(AX), R9
	MOVQ 48(AX), R10
	MOVQ 72(AX), R11
	MOVQ nb+16(FP), CX
	XORQ R13, R13 // block * 4: offset in each input's scales
	XORQ R14, R14 // block * 16: offset in each input's sums
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPBROADCASTD k4nib<>(SB), Z25
	VMOVDQU32 k4shift<>(SB), Z26
q4kx4loop:
	CMPQ CX, $0
	JLE q4kx4done
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	KSUBBLOCK(0)
	KSUM(0, R8, Z8, Z9, Z0)
	KSUM(0, R9, Z10, Z11, Z1)
	KSUM(0, R10, Z8, Z9, Z2)
	KSUM(0, R11, Z10, Z11, Z3)
	KSUBBLOCK(1)
	KSUM(1, R8, Z8, Z9, Z0)
	KSUM(1, R9, Z10, Z11, Z1)
	KSUM(1, R10, Z8, Z9, Z2)
	KSUM(1, R11, Z10, Z11, Z3)
	KSUBBLOCK(2)
	KSUM(2, R8, Z8, Z9, Z0)
	KSUM(2, R9, Z10, Z11, Z1)
	KSUM(2, R10, Z8, Z9, Z2)
	KSUM(2, R11, Z10, Z11, Z3)
	KSUBBLOCK(3)
	KSUM(3, R8, Z8, Z9, Z0)
	KSUM(3, R9, Z10, Z11, Z1)
	KSUM(3, R10, Z8, Z9, Z2)
	KSUM(3, R11, Z10, Z11, Z3)
	KSUBBLOCK(4)
	KSUM(4, R8, Z8, Z9, Z0)
	KSUM(4, R9, Z10, Z11, Z1)
	KSUM(4, R10, Z8, Z9, Z2)
	KSUM(4, R11, Z10, Z11, Z3)
	KSUBBLOCK(5)
	KSUM(5, R8, Z8, Z9, Z0)
	KSUM(5, R9, Z10, Z11, Z1)
	KSUM(5, R10, Z8, Z9, Z2)
	KSUM(5, R11, Z10, Z11, Z3)
	KSUBBLOCK(6)
	KSUM(6, R8, Z8, Z9, Z0)
	KSUM(6, R9, Z10, Z11, Z1)
	KSUM(6, R10, Z8, Z9, Z2)
	KSUM(6, R11, Z10, Z11, Z3)
	KSUBBLOCK(7)
	KSUM(7, R8, Z8, Z9, Z0)
	KSUM(7, R9, Z10, Z11, Z1)
	KSUM(7, R10, Z8, Z9, Z2)
	KSUM(7, R11, Z10, Z11, Z3)
	KSCALES
	MOVQ 16(AX), DX
	ADDQ R14, DX
	MOVQ 8(AX), BX
	KFINAL(DX, (BX)(R13*1), Z0, Z4, Z12)
	MOVQ 40(AX), DX
	ADDQ R14, DX
	MOVQ 32(AX), BX
	KFINAL(DX, (BX)(R13*1), Z1, Z5, Z13)
	MOVQ 64(AX), DX
	ADDQ R14, DX
	MOVQ 56(AX), BX
	KFINAL(DX, (BX)(R13*1), Z2, Z6, Z14)
	MOVQ 88(AX), DX
	ADDQ R14, DX
	MOVQ 80(AX), BX
	KFINAL(DX, (BX)(R13*1), Z3, Z7, Z15)
	ADDQ $2368, SI
	ADDQ $256, R8
	ADDQ $256, R9
	ADDQ $256, R10
	ADDQ $256, R11
	ADDQ $4, R13
	ADDQ $16, R14
	DECQ CX
	JMP q4kx4loop
q4kx4done:
	STORE4

// func q4kr16x1VNNI(w *byte, xq *int8, xd *float32, s32 *int16, nb int, out *float32)
// Sixteen packed Q4_K rows against one input: out[r] = row r · input.
TEXT ·q4kr16x1VNNI(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), R8
	MOVQ xd+16(FP), BX
	MOVQ s32+24(FP), DX
	MOVQ nb+32(FP), CX
	VPXORD Z12, Z12, Z12
	VPBROADCASTD k4nib<>(SB), Z25
	VMOVDQU32 k4shift<>(SB), Z26
q4kx1loop:
	CMPQ CX, $0
	JLE q4kx1done
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	KSUBBLOCK(0)
	KSUM(0, R8, Z8, Z9, Z0)
	KSUBBLOCK(1)
	KSUM(1, R8, Z8, Z9, Z1)
	KSUBBLOCK(2)
	KSUM(2, R8, Z8, Z9, Z0)
	KSUBBLOCK(3)
	KSUM(3, R8, Z8, Z9, Z1)
	KSUBBLOCK(4)
	KSUM(4, R8, Z8, Z9, Z0)
	KSUBBLOCK(5)
	KSUM(5, R8, Z8, Z9, Z1)
	KSUBBLOCK(6)
	KSUM(6, R8, Z8, Z9, Z0)
	KSUBBLOCK(7)
	KSUM(7, R8, Z8, Z9, Z1)
	VPADDD Z1, Z0, Z0
	KSCALES
	KFINAL(DX, (BX), Z0, Z4, Z12)
	ADDQ $2368, SI
	ADDQ $256, R8
	ADDQ $4, BX
	ADDQ $16, DX
	DECQ CX
	JMP q4kx1loop
q4kx1done:
	MOVQ out+40(FP), AX
	VMOVUPS Z12, (AX)
	VZEROUPPER
	RET

// Run g of sub-block s: lane r of zw gets row r's four quants (0..63):
// the nibbles, then 16 and 32 added where the fifth and sixth bits are set.
#define Q6RUN(s, g, zw) \
	NIBRUN((288+192*s+32*g), zw) \
	KMOVQ (416+192*s+16*g)(SI), K1 \
	VPADDB Z27, zw, K1, zw \
	KMOVQ (424+192*s+16*g)(SI), K2 \
	VPADDB Z31, zw, K2, zw

// Sub-block s's four runs, in ra-rd; the lines of the block two ahead
// where this sub-block lies are fetched into cache.
#define Q6SUB(s, ra, rb, rc, rd) \
	PREFETCHT0 (6720+210*s)(SI) \
	PREFETCHT0 (6784+210*s)(SI) \
	PREFETCHT0 (6848+210*s)(SI) \
	PREFETCHT0 (6912+210*s)(SI) \
	Q6RUN(s, 0, ra) \
	Q6RUN(s, 1, rb) \
	Q6RUN(s, 2, rc) \
	Q6RUN(s, 3, rd)

// Sub-block s's 16 sums against the input at xq (runs in ra-rd), times
// the rows' scales sc, into iacc.
#define Q6SUM(s, xq, ra, rb, rc, rd, sc, t1, t2, iacc) \
	VPXORD t1, t1, t1 \
	VPXORD t2, t2, t2 \
	VPDPBUSD.BCST (16*s)(xq), ra, t1 \
	VPDPBUSD.BCST (16*s+4)(xq), rb, t2 \
	VPDPBUSD.BCST (16*s+8)(xq), rc, t1 \
	VPDPBUSD.BCST (16*s+12)(xq), rd, t2 \
	VPADDD t2, t1, t1 \
	VPMULLD sc, t1, t1 \
	VPADDD t1, iacc, iacc

// Pair p's scales: Z28 the int16 pairs of sub-blocks 2p and 2p+1, Z29
// the first as int32, Z30 the second.
#define Q6SCALES(p) \
	VPMOVSXBW (32+32*p)(SI), Z28 \
	VPSLLD $16, Z28, Z29 \
	VPSRAD $16, Z29, Z29 \
	VPSRAD $16, Z28, Z30

// f gets d*xd*(iacc - 32*sacc): the quants carry 32 over their value.
#define Q6FINAL(xd, iacc, sacc, f) \
	VPSLLD $5, sacc, sacc \
	VPSUBD sacc, iacc, iacc \
	VCVTDQ2PS iacc, iacc \
	VMULPS.BCST xd, Z24, Z29 \
	VFMADD231PS iacc, Z29, f

#define Q6CONSTS \
	VPBROADCASTD k4nib<>(SB), Z25 \
	VMOVDQU32 k4shift<>(SB), Z26 \
	VPBROADCASTD k6bit4<>(SB), Z27 \
	VPBROADCASTD k6bit5<>(SB), Z31

// func q6kr16x4VNNI(w *byte, in *[4]kInput, nb int, out *float32, ostride int)
// Sixteen packed Q6_K rows (a group, nb super-blocks) against four Q8_K
// inputs: the 16 floats at out + k*ostride bytes get row r · input k.
TEXT ·q6kr16x4VNNI(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ in+8(FP), AX
	MOVQ 0(AX), R8
	MOVQ 24(AX), R9
	MOVQ 48(AX), R10
	MOVQ 72(AX), R11
	MOVQ nb+16(FP), CX
	XORQ R13, R13 // block * 4: offset in each input's scales
	XORQ R14, R14 // block * 32: offset in each input's 16-value sums
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	Q6CONSTS
q6kx4loop:
	CMPQ CX, $0
	JLE q6kx4done
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	Q6SCALES(0)
	MOVQ 16(AX), DX
	VPDPWSSD.BCST 0(DX)(R14*1), Z28, Z4
	MOVQ 40(AX), DX
	VPDPWSSD.BCST 0(DX)(R14*1), Z28, Z5
	MOVQ 64(AX), DX
	VPDPWSSD.BCST 0(DX)(R14*1), Z28, Z6
	MOVQ 88(AX), DX
	VPDPWSSD.BCST 0(DX)(R14*1), Z28, Z7
	Q6SUB(0, Z16, Z17, Z18, Z19)
	Q6SUM(0, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUM(0, R9, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z1)
	Q6SUM(0, R10, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z2)
	Q6SUM(0, R11, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z3)
	Q6SUB(1, Z20, Z21, Z22, Z23)
	Q6SUM(1, R8, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z0)
	Q6SUM(1, R9, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SUM(1, R10, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z2)
	Q6SUM(1, R11, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z3)
	Q6SCALES(1)
	MOVQ 16(AX), DX
	VPDPWSSD.BCST 4(DX)(R14*1), Z28, Z4
	MOVQ 40(AX), DX
	VPDPWSSD.BCST 4(DX)(R14*1), Z28, Z5
	MOVQ 64(AX), DX
	VPDPWSSD.BCST 4(DX)(R14*1), Z28, Z6
	MOVQ 88(AX), DX
	VPDPWSSD.BCST 4(DX)(R14*1), Z28, Z7
	Q6SUB(2, Z16, Z17, Z18, Z19)
	Q6SUM(2, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUM(2, R9, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z1)
	Q6SUM(2, R10, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z2)
	Q6SUM(2, R11, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z3)
	Q6SUB(3, Z20, Z21, Z22, Z23)
	Q6SUM(3, R8, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z0)
	Q6SUM(3, R9, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SUM(3, R10, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z2)
	Q6SUM(3, R11, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z3)
	Q6SCALES(2)
	MOVQ 16(AX), DX
	VPDPWSSD.BCST 8(DX)(R14*1), Z28, Z4
	MOVQ 40(AX), DX
	VPDPWSSD.BCST 8(DX)(R14*1), Z28, Z5
	MOVQ 64(AX), DX
	VPDPWSSD.BCST 8(DX)(R14*1), Z28, Z6
	MOVQ 88(AX), DX
	VPDPWSSD.BCST 8(DX)(R14*1), Z28, Z7
	Q6SUB(4, Z16, Z17, Z18, Z19)
	Q6SUM(4, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUM(4, R9, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z1)
	Q6SUM(4, R10, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z2)
	Q6SUM(4, R11, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z3)
	Q6SUB(5, Z20, Z21, Z22, Z23)
	Q6SUM(5, R8, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z0)
	Q6SUM(5, R9, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SUM(5, R10, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z2)
	Q6SUM(5, R11, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z3)
	Q6SCALES(3)
	MOVQ 16(AX), DX
	VPDPWSSD.BCST 12(DX)(R14*1), Z28, Z4
	MOVQ 40(AX), DX
	VPDPWSSD.BCST 12(DX)(R14*1), Z28, Z5
	MOVQ 64(AX), DX
	VPDPWSSD.BCST 12(DX)(R14*1), Z28, Z6
	MOVQ 88(AX), DX
	VPDPWSSD.BCST 12(DX)(R14*1), Z28, Z7
	Q6SUB(6, Z16, Z17, Z18, Z19)
	Q6SUM(6, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUM(6, R9, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z1)
	Q6SUM(6, R10, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z2)
	Q6SUM(6, R11, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z3)
	Q6SUB(7, Z20, Z21, Z22, Z23)
	Q6SUM(7, R8, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z0)
	Q6SUM(7, R9, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SUM(7, R10, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z2)
	Q6SUM(7, R11, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z3)
	Q6SCALES(4)
	MOVQ 16(AX), DX
	VPDPWSSD.BCST 16(DX)(R14*1), Z28, Z4
	MOVQ 40(AX), DX
	VPDPWSSD.BCST 16(DX)(R14*1), Z28, Z5
	MOVQ 64(AX), DX
	VPDPWSSD.BCST 16(DX)(R14*1), Z28, Z6
	MOVQ 88(AX), DX
	VPDPWSSD.BCST 16(DX)(R14*1), Z28, Z7
	Q6SUB(8, Z16, Z17, Z18, Z19)
	Q6SUM(8, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUM(8, R9, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z1)
	Q6SUM(8, R10, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z2)
	Q6SUM(8, R11, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z3)
	Q6SUB(9, Z20, Z21, Z22, Z23)
	Q6SUM(9, R8, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z0)
	Q6SUM(9, R9, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SUM(9, R10, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z2)
	Q6SUM(9, R11, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z3)
	Q6SCALES(5)
	MOVQ 16(AX), DX
	VPDPWSSD.BCST 20(DX)(R14*1), Z28, Z4
	MOVQ 40(AX), DX
	VPDPWSSD.BCST 20(DX)(R14*1), Z28, Z5
	MOVQ 64(AX), DX
	VPDPWSSD.BCST 20(DX)(R14*1), Z28, Z6
	MOVQ 88(AX), DX
	VPDPWSSD.BCST 20(DX)(R14*1), Z28, Z7
	Q6SUB(10, Z16, Z17, Z18, Z19)
	Q6SUM(10, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUM(10, R9, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z1)
	Q6SUM(10, R10, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z2)
	Q6SUM(10, R11, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z3)
	Q6SUB(11, Z20, Z21, Z22, Z23)
	Q6SUM(11, R8, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z0)
	Q6SUM(11, R9, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SUM(11, R10, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z2)
	Q6SUM(11, R11, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z3)
	Q6SCALES(6)
	MOVQ 16(AX), DX
	VPDPWSSD.BCST 24(DX)(R14*1), Z28, Z4
	MOVQ 40(AX), DX
	VPDPWSSD.BCST 24(DX)(R14*1), Z28, Z5
	MOVQ 64(AX), DX
	VPDPWSSD.BCST 24(DX)(R14*1), Z28, Z6
	MOVQ 88(AX), DX
	VPDPWSSD.BCST 24(DX)(R14*1), Z28, Z7
	Q6SUB(12, Z16, Z17, Z18, Z19)
	Q6SUM(12, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUM(12, R9, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z1)
	Q6SUM(12, R10, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z2)
	Q6SUM(12, R11, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z3)
	Q6SUB(13, Z20, Z21, Z22, Z23)
	Q6SUM(13, R8, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z0)
	Q6SUM(13, R9, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SUM(13, R10, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z2)
	Q6SUM(13, R11, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z3)
	Q6SCALES(7)
	MOVQ 16(AX), DX
	VPDPWSSD.BCST 28(DX)(R14*1), Z28, Z4
	MOVQ 40(AX), DX
	VPDPWSSD.BCST 28(DX)(R14*1), Z28, Z5
	MOVQ 64(AX), DX
	VPDPWSSD.BCST 28(DX)(R14*1), Z28, Z6
	MOVQ 88(AX), DX
	VPDPWSSD.BCST 28(DX)(R14*1), Z28, Z7
	Q6SUB(14, Z16, Z17, Z18, Z19)
	Q6SUM(14, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUM(14, R9, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z1)
	Q6SUM(14, R10, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z2)
	Q6SUM(14, R11, Z16, Z17, Z18, Z19, Z29, Z10, Z11, Z3)
	Q6SUB(15, Z20, Z21, Z22, Z23)
	Q6SUM(15, R8, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z0)
	Q6SUM(15, R9, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SUM(15, R10, Z20, Z21, Z22, Z23, Z30, Z8, Z9, Z2)
	Q6SUM(15, R11, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z3)
	VCVTPH2PS 0(SI), Z24
	MOVQ 8(AX), BX
	Q6FINAL((BX)(R13*1), Z0, Z4, Z12)
	MOVQ 32(AX), BX
	Q6FINAL((BX)(R13*1), Z1, Z5, Z13)
	MOVQ 56(AX), BX
	Q6FINAL((BX)(R13*1), Z2, Z6, Z14)
	MOVQ 80(AX), BX
	Q6FINAL((BX)(R13*1), Z3, Z7, Z15)
	ADDQ $3360, SI
	ADDQ $256, R8
	ADDQ $256, R9
	ADDQ $256, R10
	ADDQ $256, R11
	ADDQ $4, R13
	ADDQ $32, R14
	DECQ CX
	JMP q6kx4loop
q6kx4done:
	STORE4

// func q6kr16x1VNNI(w *byte, xq *int8, xd *float32, bsums *int16, nb int, out *float32)
// Sixteen packed Q6_K rows against one input: out[r] = row r · input.
TEXT ·q6kr16x1VNNI(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), R8
	MOVQ xd+16(FP), BX
	MOVQ bsums+24(FP), DX
	MOVQ nb+32(FP), CX
	VPXORD Z12, Z12, Z12
	Q6CONSTS
q6kx1loop:
	CMPQ CX, $0
	JLE q6kx1done
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z4, Z4, Z4
	Q6SCALES(0)
	VPDPWSSD.BCST 0(DX), Z28, Z4
	Q6SUB(0, Z16, Z17, Z18, Z19)
	Q6SUM(0, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUB(1, Z20, Z21, Z22, Z23)
	Q6SUM(1, R8, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SCALES(1)
	VPDPWSSD.BCST 4(DX), Z28, Z4
	Q6SUB(2, Z16, Z17, Z18, Z19)
	Q6SUM(2, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUB(3, Z20, Z21, Z22, Z23)
	Q6SUM(3, R8, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SCALES(2)
	VPDPWSSD.BCST 8(DX), Z28, Z4
	Q6SUB(4, Z16, Z17, Z18, Z19)
	Q6SUM(4, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUB(5, Z20, Z21, Z22, Z23)
	Q6SUM(5, R8, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SCALES(3)
	VPDPWSSD.BCST 12(DX), Z28, Z4
	Q6SUB(6, Z16, Z17, Z18, Z19)
	Q6SUM(6, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUB(7, Z20, Z21, Z22, Z23)
	Q6SUM(7, R8, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SCALES(4)
	VPDPWSSD.BCST 16(DX), Z28, Z4
	Q6SUB(8, Z16, Z17, Z18, Z19)
	Q6SUM(8, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUB(9, Z20, Z21, Z22, Z23)
	Q6SUM(9, R8, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SCALES(5)
	VPDPWSSD.BCST 20(DX), Z28, Z4
	Q6SUB(10, Z16, Z17, Z18, Z19)
	Q6SUM(10, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUB(11, Z20, Z21, Z22, Z23)
	Q6SUM(11, R8, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SCALES(6)
	VPDPWSSD.BCST 24(DX), Z28, Z4
	Q6SUB(12, Z16, Z17, Z18, Z19)
	Q6SUM(12, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUB(13, Z20, Z21, Z22, Z23)
	Q6SUM(13, R8, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	Q6SCALES(7)
	VPDPWSSD.BCST 28(DX), Z28, Z4
	Q6SUB(14, Z16, Z17, Z18, Z19)
	Q6SUM(14, R8, Z16, Z17, Z18, Z19, Z29, Z8, Z9, Z0)
	Q6SUB(15, Z20, Z21, Z22, Z23)
	Q6SUM(15, R8, Z20, Z21, Z22, Z23, Z30, Z10, Z11, Z1)
	VPADDD Z1, Z0, Z0
	VCVTPH2PS 0(SI), Z24
	Q6FINAL((BX), Z0, Z4, Z12)
	ADDQ $3360, SI
	ADDQ $256, R8
	ADDQ $4, BX
	ADDQ $32, DX
	DECQ CX
	JMP q6kx1loop
q6kx1done:
	MOVQ out+40(FP), AX
	VMOVUPS Z12, (AX)
	VZEROUPPER
	RET
