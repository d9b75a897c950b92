//go:build !purego

#include "textflag.h"

// The packed Q4_K kernels (layout in packedk.go). Need AVX512F, AVX512BW,
// AVX512VL and AVX512_VNNI.

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

// Run g of sub-block s: lane r of zw gets row r's four values.
#define KRUN(s, g, zw) \
	VBROADCASTI64X4 (320+256*s+32*g)(SI), zw \
	VPSRLVD Z26, zw, zw \
	VPANDD Z25, zw, zw

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
	MOVQ out+24(FP), AX
	MOVQ ostride+32(FP), BX
	VMOVUPS Z12, (AX)
	VMOVUPS Z13, (AX)(BX*1)
	VMOVUPS Z14, (AX)(BX*2)
	LEAQ (AX)(BX*2), AX
	VMOVUPS Z15, (AX)(BX*1)
	VZEROUPPER
	RET

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
