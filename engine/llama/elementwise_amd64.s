//go:build !purego

#include "textflag.h"

// The per-token work of a step outside its products, sixteen values at a
// time: RMS norms, RoPE, and the sampler's walk over the vocabulary. Each
// value comes out as the scalar Go computes it (norm.go, attention.go,
// sample.go), but for the order of the float64 sums. Need AVX512F.

// func sumSquaresAVX512(x *float32, n int) float64
// The sum of x[i]*x[i] (each square rounded to float32, as
// float64(v*v) is) in float64, for n a multiple of 16: two sums of eight
// lanes each.
TEXT ·sumSquaresAVX512(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
sqloop:
	VMOVUPS (SI), Z2
	VMULPS Z2, Z2, Z2
	VCVTPS2PD Y2, Z3
	VEXTRACTF64X4 $1, Z2, Y4
	VCVTPS2PD Y4, Z4
	VADDPD Z3, Z0, Z0
	VADDPD Z4, Z1, Z1
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ sqloop
	VADDPD Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VHADDPD X0, X0, X0
	VMOVSD X0, ret+16(FP)
	VZEROUPPER
	RET

// func scaleMulAVX512(out, x, w *float32, scale float32, n int)
// out[i] = x[i] * scale * w[i], rounded after each product, for n a
// multiple of 16.
TEXT ·scaleMulAVX512(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DX
	VBROADCASTSS scale+24(FP), Z0
	MOVQ n+32(FP), CX
smloop:
	VMULPS (SI), Z0, Z1
	VMULPS (DX), Z1, Z1
	VMOVUPS Z1, (DI)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	SUBQ $16, CX
	JNZ smloop
	VZEROUPPER
	RET

// func ropeAVX512(x *float32, heads, hd int, cs *float32, n int)
// Rotates pairs (2i, 2i+1) of the first n values of each of heads heads
// (hd values apart) by the angles whose cosines and sines cs interleaves:
// x0*c - x1*s and x0*s + x1*c, each product rounded, as rope does. n a
// multiple of 16. Z1 and Z2 hold each pair's cosine and sine twice, Z4
// the pairs swapped, Z31 the sign that turns the even lanes' addition
// into the subtraction.
TEXT ·ropeAVX512(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ heads+8(FP), BX
	MOVQ hd+16(FP), DX
	SHLQ $2, DX
	MOVQ cs+24(FP), SI
	MOVQ n+32(FP), R8
	MOVL $0x80000000, AX
	VPBROADCASTD AX, Z31
	MOVL $0x5555, AX
	KMOVW AX, K1
	VMOVDQA32.Z Z31, K1, Z31
ropehead:
	MOVQ DI, R9
	MOVQ SI, R10
	MOVQ R8, CX
ropevec:
	VMOVUPS (R10), Z0
	VMOVSLDUP Z0, Z1
	VMOVSHDUP Z0, Z2
	VMOVUPS (R9), Z3
	VPERMILPS $0xb1, Z3, Z4
	VMULPS Z1, Z3, Z3
	VMULPS Z2, Z4, Z4
	VPXORD Z31, Z4, Z4
	VADDPS Z4, Z3, Z3
	VMOVUPS Z3, (R9)
	ADDQ $64, R9
	ADDQ $64, R10
	SUBQ $16, CX
	JNZ ropevec
	ADDQ DX, DI
	DECQ BX
	JNZ ropehead
	VZEROUPPER
	RET

// func drawBlocksAVX512(p *float32, blocks int, r float64, acc *float64) int
// The first of blocks blocks of 64 values at p whose sum, added to *acc
// and to the sums of the blocks before it (each in float64), passes r;
// blocks if none does. *acc ends as the sum before that block. A NaN sum
// passes nothing, as r < NaN is false.
TEXT ·drawBlocksAVX512(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	VMOVSD r+16(FP), X10
	MOVQ acc+24(FP), DI
	VMOVSD (DI), X11
	XORQ AX, AX
drawblock:
	CMPQ AX, CX
	JGE drawdone
	VCVTPS2PD (SI), Z0
	VCVTPS2PD 32(SI), Z1
	VCVTPS2PD 64(SI), Z2
	VCVTPS2PD 96(SI), Z3
	VCVTPS2PD 128(SI), Z4
	VCVTPS2PD 160(SI), Z5
	VCVTPS2PD 192(SI), Z6
	VCVTPS2PD 224(SI), Z7
	VADDPD Z1, Z0, Z0
	VADDPD Z3, Z2, Z2
	VADDPD Z5, Z4, Z4
	VADDPD Z7, Z6, Z6
	VADDPD Z2, Z0, Z0
	VADDPD Z6, Z4, Z4
	VADDPD Z4, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VHADDPD X0, X0, X0
	VADDSD X0, X11, X12
	VUCOMISD X12, X10
	JPS drawnext
	JCS drawdone
drawnext:
	VMOVAPD X12, X11
	ADDQ $256, SI
	INCQ AX
	JMP drawblock
drawdone:
	VMOVSD X11, (DI)
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func indexF32AVX512(x *float32, n int, v float32) int
// The first i < n (a multiple of 16) with x[i] == v, or n: sixteen
// comparisons a turn, the first match's lane from the mask.
TEXT ·indexF32AVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSS v+16(FP), Z0
	XORQ AX, AX
idxloop:
	CMPQ AX, CX
	JGE idxnone
	VCMPPS $0, (SI)(AX*4), Z0, K1
	KMOVW K1, DX
	TESTL DX, DX
	JNZ idxfound
	ADDQ $16, AX
	JMP idxloop
idxfound:
	BSFL DX, DX
	ADDQ DX, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
idxnone:
	MOVQ CX, ret+24(FP)
	VZEROUPPER
	RET
