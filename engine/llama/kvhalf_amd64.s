//go:build !purego

#include "textflag.h"
#include "kernels_amd64.h"

// The F16 KV cache's conversions (kvhalf.go): rows into the cache, and
// the query and the softmax weights rounded to F16 before attention (its
// kernels over F16 rows are attention_amd64.s's). Need AVX512F
// (VCVTPS2PH on 512 bits).

// func halveAVX512(dst *uint16, src *float32, n int)
// dst[i] = src[i] rounded to the nearest F16 (ties to even), i < n; n a
// multiple of 16.
TEXT ·halveAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $4, CX
halve:
	VMOVUPS (SI), Z0
	VCVTPS2PH $0, Z0, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ halve
	VZEROUPPER
	RET

// func roundHalfAVX512(x *float32, n int)
// x[i] = x[i] rounded to the nearest F16 value, kept as float32; n a
// multiple of 16.
TEXT ·roundHalfAVX512(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $4, CX
round:
	VMOVUPS (SI), Z0
	VCVTPS2PH $0, Z0, Y1
	VCVTPH2PS Y1, Z0
	VMOVUPS Z0, (SI)
	ADDQ $64, SI
	DECQ CX
	JNZ round
	VZEROUPPER
	RET
