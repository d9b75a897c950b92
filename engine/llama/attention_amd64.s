//go:build !purego

#include "textflag.h"
#include "kernels_amd64.h"

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

// SCORE4 adds q's chunk (Z16) times the chunks of the four keys at base,
// base+s, base+2s and base+3s to a, b, c and d.
#define SCORE4(base, a, b, c, d) \
	VFMADD231PS (base), Z16, a \
	VFMADD231PS (base)(R8*1), Z16, b \
	VFMADD231PS (base)(R8*2), Z16, c \
	VFMADD231PS (base)(R10*1), Z16, d

// func scoresAVX512(q, k *float32, stride, hd, n int, scale float32, out *float32)
// out[t] = scale * q · k[t*stride : t*stride+hd] for t < n (n a multiple
// of 16, hd of 16): sixteen keys at a time, each summed in a register of
// its own over the head's dimensions and the sixteen folded together
// (FOLD16), which leaves key t's sum in lane t when key 4a+b went to
// register 4b+a. Keys 4a to 4a+3 are read from R(a) = SI, R11, R13, R14.
TEXT ·scoresAVX512(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), BX
	MOVQ k+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R10
	MOVQ hd+24(FP), DX
	SHRQ $4, DX
	MOVQ n+32(FP), CX
	VBROADCASTSS scale+40(FP), Z26
	MOVQ out+48(FP), R12
s512keys:
	CMPQ CX, $16
	JL s512done
	ZERO16
	MOVQ DI, SI
	LEAQ (SI)(R8*4), R11
	LEAQ (R11)(R8*4), R13
	LEAQ (R13)(R8*4), R14
	MOVQ BX, AX
	MOVQ DX, R9
s512dims:
	VMOVUPS (AX), Z16
	SCORE4(SI, Z0, Z4, Z8, Z12)
	SCORE4(R11, Z1, Z5, Z9, Z13)
	SCORE4(R13, Z2, Z6, Z10, Z14)
	SCORE4(R14, Z3, Z7, Z11, Z15)
	ADDQ $64, AX
	ADDQ $64, SI
	ADDQ $64, R11
	ADDQ $64, R13
	ADDQ $64, R14
	DECQ R9
	JNZ s512dims
	FOLD16
	VMULPS Z26, Z0, Z0
	VMOVUPS Z0, (R12)
	LEAQ (R14)(R8*4), DI
	MOVQ DX, AX
	SHLQ $6, AX
	SUBQ AX, DI
	ADDQ $64, R12
	SUBQ $16, CX
	JMP s512keys
s512done:
	VZEROUPPER
	RET

// func accumulateAVX512(a, v *float32, stride, hd, n int, y *float32)
// y[0:hd] += a[t] * v[t*stride : t*stride+hd] for t < n (hd a multiple of
// 16): sixteen of y's values at a time, over every t, with four sums (t
// modulo 4) so that no multiply-add waits for the one before it.
TEXT ·accumulateAVX512(SB), NOSPLIT, $0-48
	MOVQ v+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R10
	MOVQ hd+24(FP), DX
	SHRQ $4, DX
	MOVQ y+40(FP), R12
a512dims:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ a+0(FP), BX
	MOVQ n+32(FP), CX
	MOVQ DI, SI
a512four:
	CMPQ CX, $4
	JL a512one
	VBROADCASTSS 0(BX), Z4
	VBROADCASTSS 4(BX), Z5
	VBROADCASTSS 8(BX), Z6
	VBROADCASTSS 12(BX), Z7
	VFMADD231PS (SI), Z4, Z0
	VFMADD231PS (SI)(R8*1), Z5, Z1
	VFMADD231PS (SI)(R8*2), Z6, Z2
	VFMADD231PS (SI)(R10*1), Z7, Z3
	LEAQ (SI)(R8*4), SI
	ADDQ $16, BX
	SUBQ $4, CX
	JMP a512four
a512one:
	CMPQ CX, $0
	JE a512sum
	VBROADCASTSS 0(BX), Z4
	VFMADD231PS (SI), Z4, Z0
	ADDQ R8, SI
	ADDQ $4, BX
	DECQ CX
	JMP a512one
a512sum:
	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z2, Z0, Z0
	VADDPS (R12), Z0, Z0
	VMOVUPS Z0, (R12)
	ADDQ $64, R12
	ADDQ $64, DI
	DECQ DX
	JNZ a512dims
	VZEROUPPER
	RET

// func scoresTailAVX512(q, k *float32, stride, hd, n int, scale float32, out *float32)
// scoresAVX512 for the keys past its last sixteen (n < 16 of them, hd a
// multiple of 16): each key's products in one register, then folded to
// one sum. Z0 the key's sums, Z1 the query's values.
TEXT ·scoresTailAVX512(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), BX
	MOVQ k+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	MOVQ hd+24(FP), DX
	SHRQ $4, DX
	MOVQ n+32(FP), CX
	VMOVSS scale+40(FP), X2
	MOVQ out+48(FP), R12
tailkey:
	VPXORD Z0, Z0, Z0
	MOVQ BX, AX
	MOVQ DI, SI
	MOVQ DX, R9
taildims:
	VMOVUPS (AX), Z1
	VFMADD231PS (SI), Z1, Z0
	ADDQ $64, AX
	ADDQ $64, SI
	DECQ R9
	JNZ taildims
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMULSS X2, X0, X0
	VMOVSS X0, (R12)
	ADDQ R8, DI
	ADDQ $4, R12
	DECQ CX
	JNZ tailkey
	VZEROUPPER
	RET
