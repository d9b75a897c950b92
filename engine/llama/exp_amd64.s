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

// func expShiftAVX512(dst, src *float32, n int, mx, inv float32, c *[expConsts][8]float32) float64
// expShiftAVX2 sixteen at a time (n a multiple of 16), the same steps in
// the same order: the values are the scalar ones bit for bit.
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
exp512loop:
	CMPQ CX, $0
	JLE exp512done
	VMOVUPS (SI), Z2
	VSUBPS Z0, Z2, Z2          // l - mx
	VMULPS Z1, Z2, Z2          // x
	VMULPS Z16, Z2, Z3         // x log2e
	VADDPS Z17, Z3, Z3         // + 0.5
	VRNDSCALEPS $1, Z3, Z3     // n = floor
	VMULPS Z18, Z3, Z4         // n ln2hi
	VSUBPS Z4, Z2, Z4          // x - n ln2hi
	VMULPS Z19, Z3, Z5         // n ln2lo
	VSUBPS Z5, Z4, Z4          // r
	VMULPS Z4, Z20, Z5         // p
	VADDPS Z21, Z5, Z5
	VMULPS Z4, Z5, Z5
	VADDPS Z22, Z5, Z5
	VMULPS Z4, Z5, Z5
	VADDPS Z23, Z5, Z5
	VMULPS Z4, Z5, Z5
	VADDPS Z24, Z5, Z5
	VMULPS Z4, Z5, Z5
	VADDPS Z25, Z5, Z5
	VMULPS Z4, Z5, Z5          // p r
	VMULPS Z4, Z5, Z5          // p r r
	VADDPS Z4, Z5, Z5          // + r
	VADDPS Z26, Z5, Z5         // + 1
	VCVTTPS2DQ Z3, Z6          // 2^n: n into the exponent bits
	VPSLLD $23, Z6, Z6
	VPADDD Z6, Z5, Z5
	VCMPPS $5, Z27, Z2, K1     // not x < the lower clamp: kept, else 0
	VMOVAPS.Z Z5, K1, Z5
	VMOVUPS Z5, (DI)
	VCVTPS2PD Y5, Z6
	VADDPD Z6, Z14, Z14
	VEXTRACTF32X8 $1, Z5, Y7
	VCVTPS2PD Y7, Z7
	VADDPD Z7, Z15, Z15
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP exp512loop
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
