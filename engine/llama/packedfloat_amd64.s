//go:build !purego

#include "textflag.h"
#include "kernels_amd64.h"

// The packed F32, F16 and BF16 kernels (layout in packedfloat.go): two
// groups of 16 rows against 12, 8, 4, 2 or 1 inputs. Need AVX512F.
//
// Registers: SI the first group's column k, R8 the second group's offset,
// R14 the next unit's column k (prefetched into L2 as this one is read);
// AX, BX, R12 and R13 inputs 0, 3, 6 and 9 at k, DX the inputs' stride;
// Z28 and Z29 the two groups' column, Z30 an input's value broadcast; the
// sums of input j in Z(2j) (first group) and Z(2j+1).

// IN adds input value at addr times the two groups' column to a and b.
#define IN(addr, a, b) \
	VBROADCASTSS addr, Z30 \
	VFMADD231PS Z30, Z28, a \
	VFMADD231PS Z30, Z29, b

// OUT stores an input's two groups' sums to out (R9), then steps to the
// next input's (R10 the stride).
#define OUT(a, b) \
	VMOVUPS a, (R9) \
	VMOVUPS b, 64(R9) \
	ADDQ R10, R9

// COLUMN loads column k of both groups (16 values each, widened to
// float32), prefetches the next unit's, and steps to column k+1.
#define COLUMN(LOAD, WIDEN, WSTEP) \
	LOAD (SI), Z28 \
	LOAD (SI)(R8*1), Z29 \
	WIDEN(Z28) \
	WIDEN(Z29) \
	ADDQ WSTEP, SI \
	PREFETCHT1 (R14) \
	PREFETCHT1 (R14)(R8*1) \
	ADDQ WSTEP, R14

#define P2(LOAD, WIDEN, WSHIFT, WSTEP) \
	MOVQ w+0(FP), SI \
	MOVQ n+8(FP), CX \
	MOVQ CX, R8 \
	SHLQ WSHIFT, R8 \
	MOVQ x+16(FP), AX \
	MOVQ CX, DX \
	SHLQ $2, DX \
	LEAQ (AX)(DX*2), BX \
	ADDQ DX, BX \
	LEAQ (BX)(DX*2), R12 \
	ADDQ DX, R12 \
	LEAQ (R12)(DX*2), R13 \
	ADDQ DX, R13 \
	MOVQ out+24(FP), R9 \
	MOVQ ostride+32(FP), R10 \
	SHLQ $2, R10 \
	MOVQ width+40(FP), R11 \
	LEAQ (SI)(R8*2), R14 \
	ZERO16 \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21 \
	VPXORD Z22, Z22, Z22 \
	VPXORD Z23, Z23, Z23 \
	CMPQ R11, $12 \
	JEQ w12 \
	CMPQ R11, $8 \
	JEQ w8 \
	CMPQ R11, $4 \
	JEQ w4 \
	CMPQ R11, $2 \
	JEQ w2 \
w1: \
	COLUMN(LOAD, WIDEN, WSTEP) \
	IN((AX), Z0, Z1) \
	ADDQ $4, AX \
	DECQ CX \
	JNZ w1 \
	OUT(Z0, Z1) \
	VZEROUPPER \
	RET \
w2: \
	COLUMN(LOAD, WIDEN, WSTEP) \
	IN((AX), Z0, Z1) \
	IN((AX)(DX*1), Z2, Z3) \
	ADDQ $4, AX \
	DECQ CX \
	JNZ w2 \
	OUT(Z0, Z1) \
	OUT(Z2, Z3) \
	VZEROUPPER \
	RET \
w4: \
	COLUMN(LOAD, WIDEN, WSTEP) \
	IN((AX), Z0, Z1) \
	IN((AX)(DX*1), Z2, Z3) \
	IN((AX)(DX*2), Z4, Z5) \
	IN((BX), Z6, Z7) \
	ADDQ $4, AX \
	ADDQ $4, BX \
	DECQ CX \
	JNZ w4 \
	OUT(Z0, Z1) \
	OUT(Z2, Z3) \
	OUT(Z4, Z5) \
	OUT(Z6, Z7) \
	VZEROUPPER \
	RET \
w8: \
	COLUMN(LOAD, WIDEN, WSTEP) \
	IN((AX), Z0, Z1) \
	IN((AX)(DX*1), Z2, Z3) \
	IN((AX)(DX*2), Z4, Z5) \
	IN((BX), Z6, Z7) \
	IN((BX)(DX*1), Z8, Z9) \
	IN((BX)(DX*2), Z10, Z11) \
	IN((R12), Z12, Z13) \
	IN((R12)(DX*1), Z14, Z15) \
	ADDQ $4, AX \
	ADDQ $4, BX \
	ADDQ $4, R12 \
	DECQ CX \
	JNZ w8 \
	OUT(Z0, Z1) \
	OUT(Z2, Z3) \
	OUT(Z4, Z5) \
	OUT(Z6, Z7) \
	OUT(Z8, Z9) \
	OUT(Z10, Z11) \
	OUT(Z12, Z13) \
	OUT(Z14, Z15) \
	VZEROUPPER \
	RET \
w12: \
	COLUMN(LOAD, WIDEN, WSTEP) \
	IN((AX), Z0, Z1) \
	IN((AX)(DX*1), Z2, Z3) \
	IN((AX)(DX*2), Z4, Z5) \
	IN((BX), Z6, Z7) \
	IN((BX)(DX*1), Z8, Z9) \
	IN((BX)(DX*2), Z10, Z11) \
	IN((R12), Z12, Z13) \
	IN((R12)(DX*1), Z14, Z15) \
	IN((R12)(DX*2), Z16, Z17) \
	IN((R13), Z18, Z19) \
	IN((R13)(DX*1), Z20, Z21) \
	IN((R13)(DX*2), Z22, Z23) \
	ADDQ $4, AX \
	ADDQ $4, BX \
	ADDQ $4, R12 \
	ADDQ $4, R13 \
	DECQ CX \
	JNZ w12 \
	OUT(Z0, Z1) \
	OUT(Z2, Z3) \
	OUT(Z4, Z5) \
	OUT(Z6, Z7) \
	OUT(Z8, Z9) \
	OUT(Z10, Z11) \
	OUT(Z12, Z13) \
	OUT(Z14, Z15) \
	OUT(Z16, Z17) \
	OUT(Z18, Z19) \
	OUT(Z20, Z21) \
	OUT(Z22, Z23) \
	VZEROUPPER \
	RET

// func f32p2AVX512(w *float32, n int, x *float32, out *float32, ostride int, width int)
// Two packed F32 groups (the second n*16 values after the first) against
// width consecutive inputs of n values at x: out[j*ostride+r] is row r's
// product with input j. n > 0; width 1, 2, 4, 8 or 12.
TEXT ·f32p2AVX512(SB), NOSPLIT, $0-48
	P2(VMOVUPS, NOWIDEN, $6, $64)

// func f16p2AVX512(w *uint16, n int, x *float32, out *float32, ostride int, width int)
// f32p2AVX512 for F16 groups, converted 16 values at a time as they load.
TEXT ·f16p2AVX512(SB), NOSPLIT, $0-48
	P2(VCVTPH2PS, NOWIDEN, $5, $32)

// func bf16p2AVX512(w *uint16, n int, x *float32, out *float32, ostride int, width int)
// f32p2AVX512 for BF16 groups, widened as they load.
TEXT ·bf16p2AVX512(SB), NOSPLIT, $0-48
	P2(VPMOVZXWD, BF16WIDEN, $5, $32)

// W1X4 is P2 at width 1 over four units (eight groups, 128 rows) a call,
// for batch 1: one input value broadcast a column against every group,
// eight sums each in a chain of its own. At width 1 P2 has two chains,
// and each multiply-add waits for the one before it on its chain: that
// latency, not memory, bounded a batch-1 product whose rows were in cache
// (half this speed, in L2). Each row still sums in order of k, one
// multiply-add rounded once a column, so its bits are P2's. Registers: SI
// groups 0-3 (R8 a group's bytes, R10 three groups), DI groups 4-7, AX the
// input, Z30 its value, Z16-Z23 the columns.
#define GROUP1(LOAD, WIDEN, addr, col, sum) \
	LOAD addr, col \
	WIDEN(col) \
	VFMADD231PS Z30, col, sum

#define W1X4(LOAD, WIDEN, WSHIFT, WSTEP) \
	MOVQ w+0(FP), SI \
	MOVQ n+8(FP), CX \
	MOVQ CX, R8 \
	SHLQ WSHIFT, R8 \
	LEAQ (R8)(R8*2), R10 \
	LEAQ (SI)(R8*4), DI \
	MOVQ x+16(FP), AX \
	MOVQ out+24(FP), R9 \
	ZERO8 \
w1x4: \
	VBROADCASTSS (AX), Z30 \
	GROUP1(LOAD, WIDEN, (SI), Z16, Z0) \
	GROUP1(LOAD, WIDEN, (SI)(R8*1), Z17, Z1) \
	GROUP1(LOAD, WIDEN, (SI)(R8*2), Z18, Z2) \
	GROUP1(LOAD, WIDEN, (SI)(R10*1), Z19, Z3) \
	GROUP1(LOAD, WIDEN, (DI), Z20, Z4) \
	GROUP1(LOAD, WIDEN, (DI)(R8*1), Z21, Z5) \
	GROUP1(LOAD, WIDEN, (DI)(R8*2), Z22, Z6) \
	GROUP1(LOAD, WIDEN, (DI)(R10*1), Z23, Z7) \
	ADDQ WSTEP, SI \
	ADDQ WSTEP, DI \
	ADDQ $4, AX \
	DECQ CX \
	JNZ w1x4 \
	VMOVUPS Z0, (R9) \
	VMOVUPS Z1, 64(R9) \
	VMOVUPS Z2, 128(R9) \
	VMOVUPS Z3, 192(R9) \
	VMOVUPS Z4, 256(R9) \
	VMOVUPS Z5, 320(R9) \
	VMOVUPS Z6, 384(R9) \
	VMOVUPS Z7, 448(R9) \
	VZEROUPPER \
	RET

// func f32w1x4AVX512(w *float32, n int, x *float32, out *float32)
// Four packed F32 units (eight groups of 16 rows, one after another)
// against one input of n values: out[r] is row r's product, r < 128. n > 0.
TEXT ·f32w1x4AVX512(SB), NOSPLIT, $0-32
	W1X4(VMOVUPS, NOWIDEN, $6, $64)

// func f16w1x4AVX512(w *uint16, n int, x *float32, out *float32)
// f32w1x4AVX512 for F16 units.
TEXT ·f16w1x4AVX512(SB), NOSPLIT, $0-32
	W1X4(VCVTPH2PS, NOWIDEN, $5, $32)

// func bf16w1x4AVX512(w *uint16, n int, x *float32, out *float32)
// f32w1x4AVX512 for BF16 units.
TEXT ·bf16w1x4AVX512(SB), NOSPLIT, $0-32
	W1X4(VPMOVZXWD, BF16WIDEN, $5, $32)
