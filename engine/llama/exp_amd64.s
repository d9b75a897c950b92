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
