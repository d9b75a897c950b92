//go:build !purego

#include "textflag.h"
#include "kernels_amd64.h"

// The AVX-512 kernels take a cache of F32 values, or of F16 ones (an F16
// KV cache, kvhalf.go) widened sixteen at a time as they load: each is a
// macro of the element's size (ESHIFT: 2 for F32, 1 for F16 bytes a
// value, as a shift; CHUNK the bytes of sixteen values, CSHIFT its shift)
// and of how a row's sixteen values join a product (KEYS4, KEY1, VALS4,
// VAL1).

// F32KEYS4 adds q's chunk (Z16) times the chunks of the four keys at base,
// base+s, base+2s and base+3s to a, b, c and d; F16KEYS4 widens the keys
// first (Z17-Z20).
#define F32KEYS4(base, a, b, c, d) \
	VFMADD231PS (base), Z16, a \
	VFMADD231PS (base)(R8*1), Z16, b \
	VFMADD231PS (base)(R8*2), Z16, c \
	VFMADD231PS (base)(R10*1), Z16, d

#define F16KEYS4(base, a, b, c, d) \
	VCVTPH2PS (base), Z17 \
	VCVTPH2PS (base)(R8*1), Z18 \
	VCVTPH2PS (base)(R8*2), Z19 \
	VCVTPH2PS (base)(R10*1), Z20 \
	VFMADD231PS Z17, Z16, a \
	VFMADD231PS Z18, Z16, b \
	VFMADD231PS Z19, Z16, c \
	VFMADD231PS Z20, Z16, d

// SCORES: out[t] = scale * q · k[t*stride : t*stride+hd] for t < n (n a
// multiple of 16, hd of 16): sixteen keys at a time, each summed in a
// register of its own over the head's dimensions and the sixteen folded
// together (FOLD16), which leaves key t's sum in lane t when key 4a+b went
// to register 4b+a. Keys 4a to 4a+3 are read from R(a) = SI, R11, R13,
// R14.
#define SCORES(KEYS4, ESHIFT, CHUNK, CSHIFT) \
	MOVQ q+0(FP), BX \
	MOVQ k+8(FP), DI \
	MOVQ stride+16(FP), R8 \
	SHLQ ESHIFT, R8 \
	LEAQ (R8)(R8*2), R10 \
	MOVQ hd+24(FP), DX \
	SHRQ $4, DX \
	MOVQ n+32(FP), CX \
	VBROADCASTSS scale+40(FP), Z26 \
	MOVQ out+48(FP), R12 \
keys: \
	CMPQ CX, $16 \
	JL done \
	ZERO16 \
	MOVQ DI, SI \
	LEAQ (SI)(R8*4), R11 \
	LEAQ (R11)(R8*4), R13 \
	LEAQ (R13)(R8*4), R14 \
	MOVQ BX, AX \
	MOVQ DX, R9 \
dims: \
	VMOVUPS (AX), Z16 \
	KEYS4(SI, Z0, Z4, Z8, Z12) \
	KEYS4(R11, Z1, Z5, Z9, Z13) \
	KEYS4(R13, Z2, Z6, Z10, Z14) \
	KEYS4(R14, Z3, Z7, Z11, Z15) \
	ADDQ $64, AX \
	ADDQ CHUNK, SI \
	ADDQ CHUNK, R11 \
	ADDQ CHUNK, R13 \
	ADDQ CHUNK, R14 \
	DECQ R9 \
	JNZ dims \
	FOLD16 \
	VMULPS Z26, Z0, Z0 \
	VMOVUPS Z0, (R12) \
	LEAQ (R14)(R8*4), DI \
	MOVQ DX, AX \
	SHLQ CSHIFT, AX \
	SUBQ AX, DI \
	ADDQ $64, R12 \
	SUBQ $16, CX \
	JMP keys \
done: \
	VZEROUPPER \
	RET

// F32VALS4 adds the broadcast weights Z4-Z7 times the chunks of the four
// values at SI, SI+s, SI+2s, SI+3s to the sums Z0-Z3; F16VALS4 widens the
// values first (Z8-Z11). F32VAL1 and F16VAL1 take one row (Z4 to Z0).
#define F32VALS4 \
	VFMADD231PS (SI), Z4, Z0 \
	VFMADD231PS (SI)(R8*1), Z5, Z1 \
	VFMADD231PS (SI)(R8*2), Z6, Z2 \
	VFMADD231PS (SI)(R10*1), Z7, Z3

#define F16VALS4 \
	VCVTPH2PS (SI), Z8 \
	VCVTPH2PS (SI)(R8*1), Z9 \
	VCVTPH2PS (SI)(R8*2), Z10 \
	VCVTPH2PS (SI)(R10*1), Z11 \
	VFMADD231PS Z8, Z4, Z0 \
	VFMADD231PS Z9, Z5, Z1 \
	VFMADD231PS Z10, Z6, Z2 \
	VFMADD231PS Z11, Z7, Z3

#define F32VAL1 VFMADD231PS (SI), Z4, Z0

#define F16VAL1 \
	VCVTPH2PS (SI), Z8 \
	VFMADD231PS Z8, Z4, Z0

// ACCUMULATE: y[0:hd] += a[t] * v[t*stride : t*stride+hd] for t < n (hd a
// multiple of 16): sixteen of y's values at a time, over every t, with
// four sums (t modulo 4) so that no multiply-add waits for the one before
// it.
#define ACCUMULATE(VALS4, VAL1, ESHIFT, CHUNK) \
	MOVQ v+8(FP), DI \
	MOVQ stride+16(FP), R8 \
	SHLQ ESHIFT, R8 \
	LEAQ (R8)(R8*2), R10 \
	MOVQ hd+24(FP), DX \
	SHRQ $4, DX \
	MOVQ y+40(FP), R12 \
dims: \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3 \
	MOVQ a+0(FP), BX \
	MOVQ n+32(FP), CX \
	MOVQ DI, SI \
four: \
	CMPQ CX, $4 \
	JL one \
	VBROADCASTSS 0(BX), Z4 \
	VBROADCASTSS 4(BX), Z5 \
	VBROADCASTSS 8(BX), Z6 \
	VBROADCASTSS 12(BX), Z7 \
	VALS4 \
	LEAQ (SI)(R8*4), SI \
	ADDQ $16, BX \
	SUBQ $4, CX \
	JMP four \
one: \
	CMPQ CX, $0 \
	JE sum \
	VBROADCASTSS 0(BX), Z4 \
	VAL1 \
	ADDQ R8, SI \
	ADDQ $4, BX \
	DECQ CX \
	JMP one \
sum: \
	VADDPS Z1, Z0, Z0 \
	VADDPS Z3, Z2, Z2 \
	VADDPS Z2, Z0, Z0 \
	VADDPS (R12), Z0, Z0 \
	VMOVUPS Z0, (R12) \
	ADDQ $64, R12 \
	ADDQ CHUNK, DI \
	DECQ DX \
	JNZ dims \
	VZEROUPPER \
	RET

// F32KEY1 adds the query's chunk (Z1) times the key's at SI to Z0;
// F16KEY1 widens the key first (Z3).
#define F32KEY1 VFMADD231PS (SI), Z1, Z0

#define F16KEY1 \
	VCVTPH2PS (SI), Z3 \
	VFMADD231PS Z3, Z1, Z0

// SCORESTAIL is SCORES for the keys past its last sixteen (n < 16 of
// them, hd a multiple of 16): each key's products in one register, then
// folded to one sum. Z0 the key's sums, Z1 the query's values.
#define SCORESTAIL(KEY1, ESHIFT, CHUNK) \
	MOVQ q+0(FP), BX \
	MOVQ k+8(FP), DI \
	MOVQ stride+16(FP), R8 \
	SHLQ ESHIFT, R8 \
	MOVQ hd+24(FP), DX \
	SHRQ $4, DX \
	MOVQ n+32(FP), CX \
	VMOVSS scale+40(FP), X2 \
	MOVQ out+48(FP), R12 \
key: \
	VPXORD Z0, Z0, Z0 \
	MOVQ BX, AX \
	MOVQ DI, SI \
	MOVQ DX, R9 \
dims: \
	VMOVUPS (AX), Z1 \
	KEY1 \
	ADDQ $64, AX \
	ADDQ CHUNK, SI \
	DECQ R9 \
	JNZ dims \
	VEXTRACTF64X4 $1, Z0, Y1 \
	VADDPS Y1, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS X1, X0, X0 \
	VHADDPS X0, X0, X0 \
	VHADDPS X0, X0, X0 \
	VMULSS X2, X0, X0 \
	VMOVSS X0, (R12) \
	ADDQ R8, DI \
	ADDQ $4, R12 \
	DECQ CX \
	JNZ key \
	VZEROUPPER \
	RET

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

// func scoresAVX512(q, k *float32, stride, hd, n int, scale float32, out *float32)
TEXT ·scoresAVX512(SB), NOSPLIT, $0-56
	SCORES(F32KEYS4, $2, $64, $6)

// func scoresHalfAVX512(q *float32, k *uint16, stride, hd, n int, scale float32, out *float32)
// scoresAVX512 over F16 keys.
TEXT ·scoresHalfAVX512(SB), NOSPLIT, $0-56
	SCORES(F16KEYS4, $1, $32, $5)

// func accumulateAVX512(a, v *float32, stride, hd, n int, y *float32)
TEXT ·accumulateAVX512(SB), NOSPLIT, $0-48
	ACCUMULATE(F32VALS4, F32VAL1, $2, $64)

// func accumulateHalfAVX512(a *float32, v *uint16, stride, hd, n int, y *float32)
// accumulateAVX512 over F16 values.
TEXT ·accumulateHalfAVX512(SB), NOSPLIT, $0-48
	ACCUMULATE(F16VALS4, F16VAL1, $1, $32)

// func scoresTailAVX512(q, k *float32, stride, hd, n int, scale float32, out *float32)
TEXT ·scoresTailAVX512(SB), NOSPLIT, $0-56
	SCORESTAIL(F32KEY1, $2, $64)

// func scoresTailHalfAVX512(q *float32, k *uint16, stride, hd, n int, scale float32, out *float32)
// scoresTailAVX512 over F16 keys.
TEXT ·scoresTailHalfAVX512(SB), NOSPLIT, $0-56
	SCORESTAIL(F16KEY1, $1, $32)
