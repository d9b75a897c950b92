//go:build !purego

#include "textflag.h"

// func expShiftAVX2(dst, src *float32, n int, mx, inv float32, c *[expConsts][8]float32) float64
// dst[i] = exp32((src[i] - mx) * inv) for n elements (a multiple of 8),
// and their sum in float64. Each step is exp32's own (exp.go), unfused and
// in its order, so the values are bit for bit the scalar ones; only the
// sum's order differs. The arguments must not exceed 0 (src[i] <= mx,
// inv > 0): the upper clamp is left out.
TEXT ·expShiftAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS mx+24(FP), Y0
	VBROADCASTSS inv+28(FP), Y1
	MOVQ c+32(FP), AX
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
exploop:
	CMPQ CX, $0
	JLE expdone
	VMOVUPS (SI), Y2
	VSUBPS Y0, Y2, Y2         // l - mx
	VMULPS Y1, Y2, Y2         // x
	VMULPS 0(AX), Y2, Y3      // x log2e
	VADDPS 32(AX), Y3, Y3     // + 0.5
	VROUNDPS $1, Y3, Y3       // n = floor
	VMULPS 64(AX), Y3, Y4     // n ln2hi
	VSUBPS Y4, Y2, Y4         // x - n ln2hi
	VMULPS 96(AX), Y3, Y5     // n ln2lo
	VSUBPS Y5, Y4, Y4         // r
	VMOVUPS 128(AX), Y5       // p
	VMULPS Y4, Y5, Y5
	VADDPS 160(AX), Y5, Y5
	VMULPS Y4, Y5, Y5
	VADDPS 192(AX), Y5, Y5
	VMULPS Y4, Y5, Y5
	VADDPS 224(AX), Y5, Y5
	VMULPS Y4, Y5, Y5
	VADDPS 256(AX), Y5, Y5
	VMULPS Y4, Y5, Y5
	VADDPS 288(AX), Y5, Y5
	VMULPS Y4, Y5, Y5         // p r
	VMULPS Y4, Y5, Y5         // p r r
	VADDPS Y4, Y5, Y5         // + r
	VADDPS 320(AX), Y5, Y5    // + 1
	VCVTTPS2DQ Y3, Y6         // 2^n: n into the exponent bits
	VPSLLD $23, Y6, Y6
	VPADDD Y6, Y5, Y5
	VCMPPS $1, 352(AX), Y2, Y7 // x < the lower clamp: 0
	VANDNPS Y5, Y7, Y5
	VMOVUPS Y5, (DI)
	VCVTPS2PD X5, Y6
	VADDPD Y6, Y14, Y14
	VEXTRACTF128 $1, Y5, X7
	VCVTPS2PD X7, Y7
	VADDPD Y7, Y15, Y15
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP exploop
expdone:
	VADDPD Y15, Y14, Y14
	VEXTRACTF128 $1, Y14, X15
	VADDPD X15, X14, X14
	VHADDPD X14, X14, X14
	VMOVSD X14, ret+40(FP)
	VZEROUPPER
	RET

// EXP16 sets p (and stores it at off(DI)) to exp32 of (the sixteen
// logits at off(SI) - mx) * inv, the scalar steps in their order:
// x, n = floor(x log2e + 0.5), r = x - n ln2hi - n ln2lo, Cephes'
// polynomial, 2^n into the exponent bits, 0 below the lower clamp (k).
#define EXP16(off, x, n, r, p, e, k) \
	VMOVUPS off(SI), x \
	VSUBPS Z0, x, x \
	VMULPS Z1, x, x \
	VMULPS Z16, x, n \
	VADDPS Z17, n, n \
	VRNDSCALEPS $1, n, n \
	VMULPS Z18, n, r \
	VSUBPS r, x, r \
	VMULPS Z19, n, p \
	VSUBPS p, r, r \
	VMULPS r, Z20, p \
	VADDPS Z21, p, p \
	VMULPS r, p, p \
	VADDPS Z22, p, p \
	VMULPS r, p, p \
	VADDPS Z23, p, p \
	VMULPS r, p, p \
	VADDPS Z24, p, p \
	VMULPS r, p, p \
	VADDPS Z25, p, p \
	VMULPS r, p, p \
	VMULPS r, p, p \
	VADDPS r, p, p \
	VADDPS Z26, p, p \
	VCVTTPS2DQ n, e \
	VPSLLD $23, e, e \
	VPADDD e, p, p \
	VCMPPS $5, Z27, x, k \
	VMOVAPS.Z p, k, p \
	VMOVUPS p, off(DI)

// SUM16 adds p's sixteen values (pY its low half) to the float64 sums
// Z14 (low eight) and Z15 (high eight), through t and u.
#define SUM16(p, pY, t, u, uY) \
	VCVTPS2PD pY, t \
	VADDPD t, Z14, Z14 \
	VEXTRACTF32X8 $1, p, uY \
	VCVTPS2PD uY, u \
	VADDPD u, Z15, Z15

// func expShiftAVX512(dst, src *float32, n int, mx, inv float32, c *[expConsts][8]float32) float64
// expShiftAVX2 sixteen at a time (n a multiple of 16), the same steps in
// the same order: the values are the scalar ones bit for bit. Two vectors
// an iteration, each a chain of 30 dependent steps: one at a time, the
// loop ran at 1.6 instructions a cycle. Their sums are added in the
// order of the values, as one at a time.
TEXT ·expShiftAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS mx+24(FP), Z0
	VBROADCASTSS inv+28(FP), Z1
	MOVQ c+32(FP), AX
	VBROADCASTSS 0(AX), Z16   // log2e
	VBROADCASTSS 32(AX), Z17  // 0.5
	VBROADCASTSS 64(AX), Z18  // ln2hi
	VBROADCASTSS 96(AX), Z19  // ln2lo
	VBROADCASTSS 128(AX), Z20 // p0
	VBROADCASTSS 160(AX), Z21
	VBROADCASTSS 192(AX), Z22
	VBROADCASTSS 224(AX), Z23
	VBROADCASTSS 256(AX), Z24
	VBROADCASTSS 288(AX), Z25 // p5
	VBROADCASTSS 320(AX), Z26 // 1
	VBROADCASTSS 352(AX), Z27 // the lower clamp
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
exp512two:
	CMPQ CX, $32
	JL exp512one
	EXP16(0, Z2, Z3, Z4, Z5, Z6, K1)
	EXP16(64, Z8, Z9, Z10, Z11, Z12, K2)
	SUM16(Z5, Y5, Z6, Z7, Y7)
	SUM16(Z11, Y11, Z12, Z13, Y13)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP exp512two
exp512one:
	CMPQ CX, $0
	JLE exp512done
	EXP16(0, Z2, Z3, Z4, Z5, Z6, K1)
	SUM16(Z5, Y5, Z6, Z7, Y7)
exp512done:
	VADDPD Z15, Z14, Z14
	VEXTRACTF64X4 $1, Z14, Y15
	VADDPD Y15, Y14, Y14
	VEXTRACTF128 $1, Y14, X15
	VADDPD X15, X14, X14
	VHADDPD X14, X14, X14
	VMOVSD X14, ret+40(FP)
	VZEROUPPER
	RET
