//go:build !purego

#include "textflag.h"

// The packed Q4_0 and Q8_0 kernels for CPUs with AVX2 but not AVX-512
// VNNI (see packed.go for the layout). Q4_0 first: Lane r of a 256-bit register holds row r's
// four weights of a run (rows 0-7 from the low nibbles, 8-15 from the high
// ones); VPMADDUBSW against four input bytes broadcast to every lane makes
// two 16-bit sums a lane, which add up in 16 bits over the block's eight
// runs (a nibble is at most 15 and a quant at most 127 in magnitude: 8 x
// 2 x 15 x 127 = 30,480 fits), and one VPMADDWD a block folds each lane to
// the row's sum. The input's bias (eight times minus its sum) takes the
// 8s away, and the rows' and the input's scales multiply the sums into
// the float results, which build up in out itself. About three vector
// operations a row, input and block against nine for the unpacked
// four-input kernel (dot4Q4AVX2), which has to convert and scale every
// row's sum on its own.

// The 16-bit sums of input XQ over run G of the block at SI, whose low
// and high nibbles Y8 and Y9 hold: into ALO (rows 0-7) and AHI (8-15).
#define Q4AVX2RUN(xq, g, alo, ahi) \
	VPBROADCASTD (4*g)(xq), Y10 \
	VPMADDUBSW Y10, Y8, Y11 \
	VPADDW Y11, alo, alo \
	VPMADDUBSW Y10, Y9, Y11 \
	VPADDW Y11, ahi, ahi

// Run G's nibbles: low into Y8, high into Y9 (Y14 holds 0x0f a byte).
#define Q4AVX2NIBBLES(g) \
	VMOVDQU (32+32*g)(SI), Y8 \
	VPSRLW $4, Y8, Y9 \
	VPAND Y14, Y8, Y8 \
	VPAND Y14, Y9, Y9

// The block's row sums of one input (ALO, AHI, 16-bit pairs) to floats,
// added to the 16 results at OUT (the last 8 at OUT32): the bias at 4(XSB), the input's scale at
// 0(XSB), the rows' scales in Y12 and Y13; Y15 holds 1 a 16-bit lane.
#define Q4AVX2FINISH(xsb, alo, ahi, out, out32) \
	VPMADDWD Y15, alo, alo \
	VPMADDWD Y15, ahi, ahi \
	VPBROADCASTD 4(xsb), Y10 \
	VPADDD Y10, alo, alo \
	VPADDD Y10, ahi, ahi \
	VCVTDQ2PS alo, alo \
	VCVTDQ2PS ahi, ahi \
	VBROADCASTSS 0(xsb), Y10 \
	VMULPS Y12, Y10, Y11 \
	VMULPS Y13, Y10, Y10 \
	VMOVUPS out, Y8 \
	VFMADD231PS alo, Y11, Y8 \
	VMOVUPS Y8, out \
	VMOVUPS out32, Y9 \
	VFMADD231PS ahi, Y10, Y9 \
	VMOVUPS Y9, out32

DATA q4nib<>+0(SB)/4, $0x0f0f0f0f
GLOBL q4nib<>(SB), RODATA|NOPTR, $4
DATA q4ones<>+0(SB)/4, $0x00010001
GLOBL q4ones<>(SB), RODATA|NOPTR, $4

#define Q4AVX2CONSTS \
	VPBROADCASTD q4nib<>(SB), Y14 \
	VPBROADCASTD q4ones<>(SB), Y15

// The four-input kernels' arguments into registers (SI the group, R8-R11
// the inputs' quants, BX DX DI R12 their scales and biases, CX the blocks,
// AX and R13 the results and their stride), and the results zeroed: they
// build up in out.
#define R16X4AVX2ARGS \
	MOVQ w+0(FP), SI \
	MOVQ xq+8(FP), AX \
	MOVQ 0(AX), R8 \
	MOVQ 8(AX), R9 \
	MOVQ 16(AX), R10 \
	MOVQ 24(AX), R11 \
	MOVQ xsb+16(FP), AX \
	MOVQ 0(AX), BX \
	MOVQ 8(AX), DX \
	MOVQ 16(AX), DI \
	MOVQ 24(AX), R12 \
	MOVQ nb+24(FP), CX \
	MOVQ out+32(FP), AX \
	MOVQ ostride+40(FP), R13 \
	VXORPS Y0, Y0, Y0 \
	VMOVUPS Y0, (AX) \
	VMOVUPS Y0, 32(AX) \
	VMOVUPS Y0, (AX)(R13*1) \
	VMOVUPS Y0, 32(AX)(R13*1) \
	VMOVUPS Y0, (AX)(R13*2) \
	VMOVUPS Y0, 32(AX)(R13*2) \
	ADDQ R13, AX \
	VMOVUPS Y0, (AX)(R13*2) \
	VMOVUPS Y0, 32(AX)(R13*2) \
	SUBQ R13, AX

// The four-input kernels' pointers to the next block, STRIDE bytes on.
#define R16X4AVX2NEXT(stride) \
	ADDQ stride, SI \
	ADDQ $32, R8 \
	ADDQ $32, R9 \
	ADDQ $32, R10 \
	ADDQ $32, R11 \
	ADDQ $8, BX \
	ADDQ $8, DX \
	ADDQ $8, DI \
	ADDQ $8, R12

// func q4r16x4AVX2(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)
// Sixteen packed Q4_0 rows (a group, nb blocks) against four inputs, as
// q4r16x4VNNI: the 16 floats at out + k*ostride bytes get row r · input k.
TEXT ·q4r16x4AVX2(SB), NOSPLIT, $0-48
	R16X4AVX2ARGS
	Q4AVX2CONSTS
q4x4loop:
	CMPQ CX, $0
	JLE q4x4done
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	Q4AVX2NIBBLES(0)
	Q4AVX2RUN(R8, 0, Y0, Y1)
	Q4AVX2RUN(R9, 0, Y2, Y3)
	Q4AVX2RUN(R10, 0, Y4, Y5)
	Q4AVX2RUN(R11, 0, Y6, Y7)
	Q4AVX2NIBBLES(1)
	Q4AVX2RUN(R8, 1, Y0, Y1)
	Q4AVX2RUN(R9, 1, Y2, Y3)
	Q4AVX2RUN(R10, 1, Y4, Y5)
	Q4AVX2RUN(R11, 1, Y6, Y7)
	Q4AVX2NIBBLES(2)
	Q4AVX2RUN(R8, 2, Y0, Y1)
	Q4AVX2RUN(R9, 2, Y2, Y3)
	Q4AVX2RUN(R10, 2, Y4, Y5)
	Q4AVX2RUN(R11, 2, Y6, Y7)
	Q4AVX2NIBBLES(3)
	Q4AVX2RUN(R8, 3, Y0, Y1)
	Q4AVX2RUN(R9, 3, Y2, Y3)
	Q4AVX2RUN(R10, 3, Y4, Y5)
	Q4AVX2RUN(R11, 3, Y6, Y7)
	Q4AVX2NIBBLES(4)
	Q4AVX2RUN(R8, 4, Y0, Y1)
	Q4AVX2RUN(R9, 4, Y2, Y3)
	Q4AVX2RUN(R10, 4, Y4, Y5)
	Q4AVX2RUN(R11, 4, Y6, Y7)
	Q4AVX2NIBBLES(5)
	Q4AVX2RUN(R8, 5, Y0, Y1)
	Q4AVX2RUN(R9, 5, Y2, Y3)
	Q4AVX2RUN(R10, 5, Y4, Y5)
	Q4AVX2RUN(R11, 5, Y6, Y7)
	Q4AVX2NIBBLES(6)
	Q4AVX2RUN(R8, 6, Y0, Y1)
	Q4AVX2RUN(R9, 6, Y2, Y3)
	Q4AVX2RUN(R10, 6, Y4, Y5)
	Q4AVX2RUN(R11, 6, Y6, Y7)
	Q4AVX2NIBBLES(7)
	Q4AVX2RUN(R8, 7, Y0, Y1)
	Q4AVX2RUN(R9, 7, Y2, Y3)
	Q4AVX2RUN(R10, 7, Y4, Y5)
	Q4AVX2RUN(R11, 7, Y6, Y7)
	VCVTPH2PS (SI), Y12
	VCVTPH2PS 16(SI), Y13
	Q4AVX2FINISH(BX, Y0, Y1, (AX), 32(AX))
	Q4AVX2FINISH(DX, Y2, Y3, (AX)(R13*1), 32(AX)(R13*1))
	Q4AVX2FINISH(DI, Y4, Y5, (AX)(R13*2), 32(AX)(R13*2))
	ADDQ R13, AX
	Q4AVX2FINISH(R12, Y6, Y7, (AX)(R13*2), 32(AX)(R13*2))
	SUBQ R13, AX
	R16X4AVX2NEXT($288)
	DECQ CX
	JMP q4x4loop
q4x4done:
	VZEROUPPER
	RET

// func q4r16x1AVX2(w *byte, xq *int8, xsb *uint32, nb int, out *float32)
// The same against one input, as q4r16x1VNNI.
TEXT ·q4r16x1AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), R8
	MOVQ xsb+16(FP), BX
	MOVQ nb+24(FP), CX
	MOVQ out+32(FP), AX
	VXORPS Y0, Y0, Y0
	VMOVUPS Y0, (AX)
	VMOVUPS Y0, 32(AX)
	Q4AVX2CONSTS
q4x1loop:
	CMPQ CX, $0
	JLE q4x1done
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	Q4AVX2NIBBLES(0)
	Q4AVX2RUN(R8, 0, Y0, Y1)
	Q4AVX2NIBBLES(1)
	Q4AVX2RUN(R8, 1, Y0, Y1)
	Q4AVX2NIBBLES(2)
	Q4AVX2RUN(R8, 2, Y0, Y1)
	Q4AVX2NIBBLES(3)
	Q4AVX2RUN(R8, 3, Y0, Y1)
	Q4AVX2NIBBLES(4)
	Q4AVX2RUN(R8, 4, Y0, Y1)
	Q4AVX2NIBBLES(5)
	Q4AVX2RUN(R8, 5, Y0, Y1)
	Q4AVX2NIBBLES(6)
	Q4AVX2RUN(R8, 6, Y0, Y1)
	Q4AVX2NIBBLES(7)
	Q4AVX2RUN(R8, 7, Y0, Y1)
	VCVTPH2PS (SI), Y12
	VCVTPH2PS 16(SI), Y13
	Q4AVX2FINISH(BX, Y0, Y1, (AX), 32(AX))
	ADDQ $288, SI
	ADDQ $32, R8
	ADDQ $8, BX
	DECQ CX
	JMP q4x1loop
q4x1done:
	VZEROUPPER
	RET

// Packed Q8_0 for AVX2: the group's runs hold each weight plus 128 (the
// VNNI kernels' unsigned operand); XOR 0x80 gives the signed weight back,
// and VPMADDUBSW takes its magnitude against the input signed by it (a
// pair of products is at most 2 x 127 x 127 = 32,258, inside 16 bits).
// The bias the input carries for the offset is not wanted here. Two pairs
// already fill 16 bits, so each run's sums widen to 32 bits at once.

// Run G's weights: rows 0-7 signed into Y8 and their magnitudes into
// Y12, rows 8-15 into Y9 and Y13 (Y14 holds 0x80 a byte).
#define Q8AVX2WEIGHTS(g) \
	VPXOR (32+64*g)(SI), Y14, Y8 \
	VPXOR (64+64*g)(SI), Y14, Y9 \
	VPABSB Y8, Y12 \
	VPABSB Y9, Y13

// The 32-bit sums of input XQ over run G into ALO (rows 0-7) and AHI.
#define Q8AVX2RUN(xq, g, alo, ahi) \
	VPBROADCASTD (4*g)(xq), Y10 \
	VPSIGNB Y8, Y10, Y11 \
	VPMADDUBSW Y11, Y12, Y11 \
	VPMADDWD Y15, Y11, Y11 \
	VPADDD Y11, alo, alo \
	VPSIGNB Y9, Y10, Y11 \
	VPMADDUBSW Y11, Y13, Y11 \
	VPMADDWD Y15, Y11, Y11 \
	VPADDD Y11, ahi, ahi

// The block's row sums of one input (32-bit) to floats, added to the 16
// results at OUT and OUT32, as Q4AVX2FINISH without the bias.
#define Q8AVX2FINISH(xsb, alo, ahi, out, out32) \
	VCVTDQ2PS alo, alo \
	VCVTDQ2PS ahi, ahi \
	VBROADCASTSS 0(xsb), Y10 \
	VMULPS Y12, Y10, Y11 \
	VMULPS Y13, Y10, Y10 \
	VMOVUPS out, Y8 \
	VFMADD231PS alo, Y11, Y8 \
	VMOVUPS Y8, out \
	VMOVUPS out32, Y9 \
	VFMADD231PS ahi, Y10, Y9 \
	VMOVUPS Y9, out32

DATA q8flip<>+0(SB)/4, $0x80808080
GLOBL q8flip<>(SB), RODATA|NOPTR, $4

#define Q8AVX2CONSTS \
	VPBROADCASTD q8flip<>(SB), Y14 \
	VPBROADCASTD q4ones<>(SB), Y15

// func q8r16x4AVX2(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)
// Sixteen packed Q8_0 rows against four inputs, as q8r16x4VNNI.
TEXT ·q8r16x4AVX2(SB), NOSPLIT, $0-48
	R16X4AVX2ARGS
	Q8AVX2CONSTS
q8x4loop:
	CMPQ CX, $0
	JLE q8x4done
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	Q8AVX2WEIGHTS(0)
	Q8AVX2RUN(R8, 0, Y0, Y1)
	Q8AVX2RUN(R9, 0, Y2, Y3)
	Q8AVX2RUN(R10, 0, Y4, Y5)
	Q8AVX2RUN(R11, 0, Y6, Y7)
	Q8AVX2WEIGHTS(1)
	Q8AVX2RUN(R8, 1, Y0, Y1)
	Q8AVX2RUN(R9, 1, Y2, Y3)
	Q8AVX2RUN(R10, 1, Y4, Y5)
	Q8AVX2RUN(R11, 1, Y6, Y7)
	Q8AVX2WEIGHTS(2)
	Q8AVX2RUN(R8, 2, Y0, Y1)
	Q8AVX2RUN(R9, 2, Y2, Y3)
	Q8AVX2RUN(R10, 2, Y4, Y5)
	Q8AVX2RUN(R11, 2, Y6, Y7)
	Q8AVX2WEIGHTS(3)
	Q8AVX2RUN(R8, 3, Y0, Y1)
	Q8AVX2RUN(R9, 3, Y2, Y3)
	Q8AVX2RUN(R10, 3, Y4, Y5)
	Q8AVX2RUN(R11, 3, Y6, Y7)
	Q8AVX2WEIGHTS(4)
	Q8AVX2RUN(R8, 4, Y0, Y1)
	Q8AVX2RUN(R9, 4, Y2, Y3)
	Q8AVX2RUN(R10, 4, Y4, Y5)
	Q8AVX2RUN(R11, 4, Y6, Y7)
	Q8AVX2WEIGHTS(5)
	Q8AVX2RUN(R8, 5, Y0, Y1)
	Q8AVX2RUN(R9, 5, Y2, Y3)
	Q8AVX2RUN(R10, 5, Y4, Y5)
	Q8AVX2RUN(R11, 5, Y6, Y7)
	Q8AVX2WEIGHTS(6)
	Q8AVX2RUN(R8, 6, Y0, Y1)
	Q8AVX2RUN(R9, 6, Y2, Y3)
	Q8AVX2RUN(R10, 6, Y4, Y5)
	Q8AVX2RUN(R11, 6, Y6, Y7)
	Q8AVX2WEIGHTS(7)
	Q8AVX2RUN(R8, 7, Y0, Y1)
	Q8AVX2RUN(R9, 7, Y2, Y3)
	Q8AVX2RUN(R10, 7, Y4, Y5)
	Q8AVX2RUN(R11, 7, Y6, Y7)
	VCVTPH2PS (SI), Y12
	VCVTPH2PS 16(SI), Y13
	Q8AVX2FINISH(BX, Y0, Y1, (AX), 32(AX))
	Q8AVX2FINISH(DX, Y2, Y3, (AX)(R13*1), 32(AX)(R13*1))
	Q8AVX2FINISH(DI, Y4, Y5, (AX)(R13*2), 32(AX)(R13*2))
	ADDQ R13, AX
	Q8AVX2FINISH(R12, Y6, Y7, (AX)(R13*2), 32(AX)(R13*2))
	SUBQ R13, AX
	R16X4AVX2NEXT($544)
	DECQ CX
	JMP q8x4loop
q8x4done:
	VZEROUPPER
	RET

// func q8r16x1AVX2(w *byte, xq *int8, xsb *uint32, nb int, out *float32)
// The same against one input, as q8r16x1VNNI.
TEXT ·q8r16x1AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), R8
	MOVQ xsb+16(FP), BX
	MOVQ nb+24(FP), CX
	MOVQ out+32(FP), AX
	VXORPS Y0, Y0, Y0
	VMOVUPS Y0, (AX)
	VMOVUPS Y0, 32(AX)
	Q8AVX2CONSTS
q8x1loop:
	CMPQ CX, $0
	JLE q8x1done
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	Q8AVX2WEIGHTS(0)
	Q8AVX2RUN(R8, 0, Y0, Y1)
	Q8AVX2WEIGHTS(1)
	Q8AVX2RUN(R8, 1, Y0, Y1)
	Q8AVX2WEIGHTS(2)
	Q8AVX2RUN(R8, 2, Y0, Y1)
	Q8AVX2WEIGHTS(3)
	Q8AVX2RUN(R8, 3, Y0, Y1)
	Q8AVX2WEIGHTS(4)
	Q8AVX2RUN(R8, 4, Y0, Y1)
	Q8AVX2WEIGHTS(5)
	Q8AVX2RUN(R8, 5, Y0, Y1)
	Q8AVX2WEIGHTS(6)
	Q8AVX2RUN(R8, 6, Y0, Y1)
	Q8AVX2WEIGHTS(7)
	Q8AVX2RUN(R8, 7, Y0, Y1)
	VCVTPH2PS (SI), Y12
	VCVTPH2PS 16(SI), Y13
	Q8AVX2FINISH(BX, Y0, Y1, (AX), 32(AX))
	ADDQ $544, SI
	ADDQ $32, R8
	ADDQ $8, BX
	DECQ CX
	JMP q8x1loop
q8x1done:
	VZEROUPPER
	RET
