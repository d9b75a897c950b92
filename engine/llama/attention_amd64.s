//go:build !purego

#include "textflag.h"

// func scoresAVX2(q, k *float32, stride, hd, n int, scale float32, out *float32)
// out[t] = scale * q · k[t*stride : t*stride+hd] for t < n (n a multiple
// of 4, hd of 8): four cached keys at a time against the query, summed
// together at the end, for a whole block of keys in one call.
TEXT ·scoresAVX2(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), BX
	MOVQ k+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R9)(R9*1), R11
	MOVQ hd+24(FP), DX
	SHLQ $2, DX
	MOVQ n+32(FP), CX
	VBROADCASTSS scale+40(FP), X5
	MOVQ out+48(FP), R12
scoreskeys:
	CMPQ CX, $4
	JL scoresdone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX
scoresdims:
	VMOVUPS (BX)(AX*1), Y4
	LEAQ (DI)(AX*1), SI
	VFMADD231PS (SI), Y4, Y0
	VFMADD231PS (SI)(R8*1), Y4, Y1
	VFMADD231PS (SI)(R9*1), Y4, Y2
	VFMADD231PS (SI)(R10*1), Y4, Y3
	ADDQ $32, AX
	CMPQ AX, DX
	JL scoresdims
	// [sum Y0, sum Y1, sum Y2, sum Y3]
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMULPS X5, X0, X0
	VMOVUPS X0, (R12)
	ADDQ R11, DI
	ADDQ $16, R12
	SUBQ $4, CX
	JMP scoreskeys
scoresdone:
	VZEROUPPER
	RET

// func accumulateAVX2(a, v *float32, stride, hd, n int, y *float32)
// y[0:hd] += a[t] * v[t*stride : t*stride+hd] for t < n (n a multiple of
// 4, hd of 8), four cached values at a time.
TEXT ·accumulateAVX2(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), BX
	MOVQ v+8(FP), SI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R9)(R9*1), R11
	MOVQ hd+24(FP), DX
	SHLQ $2, DX
	MOVQ n+32(FP), CX
	MOVQ y+40(FP), DI
accpos:
	CMPQ CX, $4
	JL accdone
	VBROADCASTSS 0(BX), Y0
	VBROADCASTSS 4(BX), Y1
	VBROADCASTSS 8(BX), Y2
	VBROADCASTSS 12(BX), Y3
	XORQ AX, AX
accdims:
	LEAQ (SI)(AX*1), R12
	VMOVUPS (DI)(AX*1), Y4
	VFMADD231PS (R12), Y0, Y4
	VFMADD231PS (R12)(R8*1), Y1, Y4
	VFMADD231PS (R12)(R9*1), Y2, Y4
	VFMADD231PS (R12)(R10*1), Y3, Y4
	VMOVUPS Y4, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, DX
	JL accdims
	ADDQ R11, SI
	ADDQ $16, BX
	SUBQ $4, CX
	JMP accpos
accdone:
	VZEROUPPER
	RET
