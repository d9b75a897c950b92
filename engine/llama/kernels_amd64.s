//go:build !purego

#include "textflag.h"
#include "kernels_amd64.h"

// AVX2/FMA/F16C dot products. Each returns the sum over its blocks; the Go
// side checks CPU support and falls back to portable loops.

// Four rows against four inputs (see f32r4x4AVX512): LOAD reads 16 of a
// row's weights into float32, WSHIFT is the log2 of a weight's bytes and
// WSTEP the bytes of 16 weights.
#define R4X4(LOAD, WIDEN, WSHIFT, WSTEP) \
	MOVQ w+0(FP), SI \
	MOVQ wstride+8(FP), R8 \
	SHLQ WSHIFT, R8 \
	LEAQ (SI)(R8*2), R9 \
	MOVQ x+16(FP), DI \
	MOVQ xstride+24(FP), R10 \
	SHLQ $2, R10 \
	LEAQ (DI)(R10*2), R11 \
	MOVQ n+32(FP), CX \
	ZERO16 \
loop: \
	CMPQ CX, $0 \
	JLE done \
	LOAD (SI), Z16 \
	LOAD (SI)(R8*1), Z17 \
	LOAD (R9), Z18 \
	LOAD (R9)(R8*1), Z19 \
	WIDEN(Z16) \
	WIDEN(Z17) \
	WIDEN(Z18) \
	WIDEN(Z19) \
	VMOVUPS (DI), Z20 \
	VMOVUPS (DI)(R10*1), Z21 \
	VMOVUPS (R11), Z22 \
	VMOVUPS (R11)(R10*1), Z23 \
	VFMADD231PS Z20, Z16, Z0 \
	VFMADD231PS Z20, Z17, Z1 \
	VFMADD231PS Z20, Z18, Z2 \
	VFMADD231PS Z20, Z19, Z3 \
	VFMADD231PS Z21, Z16, Z4 \
	VFMADD231PS Z21, Z17, Z5 \
	VFMADD231PS Z21, Z18, Z6 \
	VFMADD231PS Z21, Z19, Z7 \
	VFMADD231PS Z22, Z16, Z8 \
	VFMADD231PS Z22, Z17, Z9 \
	VFMADD231PS Z22, Z18, Z10 \
	VFMADD231PS Z22, Z19, Z11 \
	VFMADD231PS Z23, Z16, Z12 \
	VFMADD231PS Z23, Z17, Z13 \
	VFMADD231PS Z23, Z18, Z14 \
	VFMADD231PS Z23, Z19, Z15 \
	ADDQ WSTEP, SI \
	ADDQ WSTEP, R9 \
	ADDQ $64, DI \
	ADDQ $64, R11 \
	SUBQ $16, CX \
	JMP loop \
done: \
	MOVQ out+40(FP), AX \
	REDUCE16(AX) \
	VZEROUPPER \
	RET

// func dotF32AVX2(a, b *float32, n int) float32
// n is a multiple of 32.
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
f32loop:
	CMPQ CX, $0
	JLE f32done
	VMOVUPS 0(SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS 0(DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP f32loop
f32done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotF16AVX2(a *uint16, b *float32, n int) float32
// n is a multiple of 32.
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
f16loop:
	CMPQ CX, $0
	JLE f16done
	VCVTPH2PS 0(SI), Y4
	VCVTPH2PS 16(SI), Y5
	VCVTPH2PS 32(SI), Y6
	VCVTPH2PS 48(SI), Y7
	VFMADD231PS 0(DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP f16loop
f16done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

DATA ones16<>+0(SB)/8, $0x0001000100010001
DATA ones16<>+8(SB)/8, $0x0001000100010001
DATA ones16<>+16(SB)/8, $0x0001000100010001
DATA ones16<>+24(SB)/8, $0x0001000100010001
GLOBL ones16<>(SB), RODATA|NOPTR, $32

DATA nib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL nib<>(SB), RODATA|NOPTR, $32


// func dotQ8AVX2(w *byte, xq *int8, xd *float32, nb int) float32
// w: nb Q8_0 blocks (f16 d, 32 int8); xq, xd: the activation's quants and scales.
TEXT ·dotQ8AVX2(SB), NOSPLIT, $0-36
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ nb+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y8, Y8, Y8
	VMOVDQU ones16<>(SB), Y7
q8loop:
	CMPQ CX, $0
	JLE q8done
	MOVWLZX 0(SI), AX
	VMOVD AX, X1
	VCVTPH2PS X1, X1
	VMULSS 0(DX), X1, X1
	VBROADCASTSS X1, Y1
	VMOVDQU 2(SI), Y2
	VMOVDQU 0(DI), Y3
	VPSIGNB Y2, Y2, Y4
	VPSIGNB Y2, Y3, Y5
	VPMADDUBSW Y5, Y4, Y6
	VPMADDWD Y7, Y6, Y6
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y1, Y0
	ADDQ $34, SI
	ADDQ $32, DI
	ADDQ $4, DX
	DECQ CX
	JMP q8loop
q8done:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+32(FP)
	VZEROUPPER
	RET

// func dotQ4AVX2(w *byte, xq *int8, xd *float32, bias *int32, nb int) float32
// w: nb Q4_0 blocks (f16 d, 16 bytes: element j low nibble, j+16 high).
// The raw nibbles (0..15) multiply the activation quants; bias (minus each
// block's quant sum, added to each of 8 lanes) takes away the 8 every
// nibble carries.
TEXT ·dotQ4AVX2(SB), NOSPLIT, $0-44
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), DX
	MOVQ bias+24(FP), R8
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VMOVDQU ones16<>(SB), Y7
	VMOVDQU nib<>(SB), Y9
q4loop:
	CMPQ CX, $0
	JLE q4done
	MOVWLZX 0(SI), AX
	VMOVD AX, X1
	VCVTPH2PS X1, X1
	VMULSS 0(DX), X1, X1
	VBROADCASTSS X1, Y1
	VMOVDQU 2(SI), X2
	VPSRLW $4, X2, X3
	VINSERTI128 $1, X3, Y2, Y2
	VPAND Y9, Y2, Y2
	VPMADDUBSW 0(DI), Y2, Y6
	VPMADDWD Y7, Y6, Y6
	VPBROADCASTD 0(R8), Y10
	VPADDD Y10, Y6, Y6
	VCVTDQ2PS Y6, Y6
	VFMADD231PS Y6, Y1, Y0
	ADDQ $18, SI
	ADDQ $32, DI
	ADDQ $4, DX
	ADDQ $4, R8
	DECQ CX
	JMP q4loop
q4done:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+40(FP)
	VZEROUPPER
	RET

// func dot4F32AVX2(w, x *float32, stride, n int, out *[4]float32)
// One weight row against 4 activation vectors x, x+stride, x+2*stride,
// x+3*stride (stride in elements): the row is loaded once for all four.
// n is a multiple of 8.
TEXT ·dot4F32AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	MOVQ n+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
d4f32loop:
	CMPQ CX, $0
	JLE d4f32done
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS (DI)(R8*1), Y4, Y1
	VFMADD231PS (DI)(R9*1), Y4, Y2
	VFMADD231PS (DI)(R10*1), Y4, Y3
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP d4f32loop
d4f32done:
	MOVQ out+32(FP), AX
	VEXTRACTF128 $1, Y0, X4
	VADDPS X4, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, 0(AX)
	VEXTRACTF128 $1, Y1, X4
	VADDPS X4, X1, X1
	VHADDPS X1, X1, X1
	VHADDPS X1, X1, X1
	VMOVSS X1, 4(AX)
	VEXTRACTF128 $1, Y2, X4
	VADDPS X4, X2, X2
	VHADDPS X2, X2, X2
	VHADDPS X2, X2, X2
	VMOVSS X2, 8(AX)
	VEXTRACTF128 $1, Y3, X4
	VADDPS X4, X3, X3
	VHADDPS X3, X3, X3
	VHADDPS X3, X3, X3
	VMOVSS X3, 12(AX)
	VZEROUPPER
	RET

// func dot4Q8AVX2(w *byte, xq *[4]*int8, xd *[4]*float32, nb int, out *[4]float32)
// One Q8_0 weight row against 4 activation vectors in Q8_0: each weight
// block is loaded once for the four.
TEXT ·dot4Q8AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ xd+16(FP), AX
	MOVQ 0(AX), R12
	MOVQ 8(AX), R13
	MOVQ 16(AX), DI
	MOVQ 24(AX), DX
	MOVQ nb+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y3, Y3, Y3
	VXORPS Y13, Y13, Y13
	VMOVDQU ones16<>(SB), Y7
d4qloop:
	CMPQ CX, $0
	JLE d4qdone
	MOVWLZX 0(SI), AX
	VMOVD AX, X8
	VCVTPH2PS X8, X8
	VMOVDQU 2(SI), Y2
	ADDQ $34, SI
	VPSIGNB Y2, Y2, Y4 // |w|
	// vector 0
	VMOVDQU (R8), Y5
	VPSIGNB Y2, Y5, Y5
	VPMADDUBSW Y5, Y4, Y5
	VPMADDWD Y7, Y5, Y5
	VCVTDQ2PS Y5, Y5
	VMULSS (R12), X8, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS Y5, Y6, Y0
	// vector 1
	VMOVDQU (R9), Y5
	VPSIGNB Y2, Y5, Y5
	VPMADDUBSW Y5, Y4, Y5
	VPMADDWD Y7, Y5, Y5
	VCVTDQ2PS Y5, Y5
	VMULSS (R13), X8, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS Y5, Y6, Y1
	// vector 2
	VMOVDQU (R10), Y5
	VPSIGNB Y2, Y5, Y5
	VPMADDUBSW Y5, Y4, Y5
	VPMADDWD Y7, Y5, Y5
	VCVTDQ2PS Y5, Y5
	VMULSS (DI), X8, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS Y5, Y6, Y3
	// vector 3 accumulates in Y12
	VMOVDQU (R11), Y5
	VPSIGNB Y2, Y5, Y5
	VPMADDUBSW Y5, Y4, Y5
	VPMADDWD Y7, Y5, Y5
	VCVTDQ2PS Y5, Y5
	VMULSS (DX), X8, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS Y5, Y6, Y13
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $4, R12
	ADDQ $4, R13
	ADDQ $4, DI
	ADDQ $4, DX
	DECQ CX
	JMP d4qloop
d4qdone:
	MOVQ out+32(FP), AX
	VEXTRACTF128 $1, Y0, X4
	VADDPS X4, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, 0(AX)
	VEXTRACTF128 $1, Y1, X4
	VADDPS X4, X1, X1
	VHADDPS X1, X1, X1
	VHADDPS X1, X1, X1
	VMOVSS X1, 4(AX)
	VEXTRACTF128 $1, Y3, X4
	VADDPS X4, X3, X3
	VHADDPS X3, X3, X3
	VHADDPS X3, X3, X3
	VMOVSS X3, 8(AX)
	VEXTRACTF128 $1, Y13, X4
	VADDPS X4, X13, X13
	VHADDPS X13, X13, X13
	VHADDPS X13, X13, X13
	VMOVSS X13, 12(AX)
	VZEROUPPER
	RET

// func axpyAVX2(a float32, x, y *float32, n int)
// y += a*x; n is a multiple of 8.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	VBROADCASTSS a+0(FP), Y0
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX
axpyloop:
	CMPQ CX, $0
	JLE axpydone
	VMOVUPS (DI), Y1
	VFMADD231PS (SI), Y0, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP axpyloop
axpydone:
	VZEROUPPER
	RET

// func dot4Q4AVX2(w *byte, xq *[4]*int8, xd *[4]*float32, bias *[4]*int32, nb int, out *[4]float32)
// One Q4_0 weight row against 4 activation vectors: each block is loaded
// and unpacked once; raw nibbles multiply each input's quants and the
// input's per-block bias takes away the 8s (see dotQ4AVX2).
TEXT ·dot4Q4AVX2(SB), NOSPLIT, $32-48
	MOVQ w+0(FP), SI
	MOVQ xq+8(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ xd+16(FP), AX
	MOVQ 0(AX), R12
	MOVQ 8(AX), R13
	MOVQ 16(AX), DI
	MOVQ 24(AX), DX
	MOVQ bias+24(FP), AX
	MOVQ 0(AX), BX
	MOVQ BX, 0(SP)
	MOVQ 8(AX), BX
	MOVQ BX, 8(SP)
	MOVQ 16(AX), BX
	MOVQ BX, 16(SP)
	MOVQ 24(AX), BX
	MOVQ BX, 24(SP)
	MOVQ nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y3, Y3, Y3
	VXORPS Y13, Y13, Y13
	VMOVDQU ones16<>(SB), Y7
	VMOVDQU nib<>(SB), Y9
d4q4loop:
	CMPQ CX, $0
	JLE d4q4done
	MOVWLZX 0(SI), AX
	VMOVD AX, X8
	VCVTPH2PS X8, X8
	VMOVDQU 2(SI), X2
	VPSRLW $4, X2, X11
	VINSERTI128 $1, X11, Y2, Y2
	VPAND Y9, Y2, Y2
	// input 0
	VPMADDUBSW (R8), Y2, Y5
	VPMADDWD Y7, Y5, Y5
	MOVQ 0(SP), AX
	VPBROADCASTD (AX), Y10
	VPADDD Y10, Y5, Y5
	VCVTDQ2PS Y5, Y5
	VMULSS (R12), X8, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS Y5, Y6, Y0
	// input 1
	VPMADDUBSW (R9), Y2, Y5
	VPMADDWD Y7, Y5, Y5
	MOVQ 8(SP), AX
	VPBROADCASTD (AX), Y10
	VPADDD Y10, Y5, Y5
	VCVTDQ2PS Y5, Y5
	VMULSS (R13), X8, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS Y5, Y6, Y1
	// input 2
	VPMADDUBSW (R10), Y2, Y5
	VPMADDWD Y7, Y5, Y5
	MOVQ 16(SP), AX
	VPBROADCASTD (AX), Y10
	VPADDD Y10, Y5, Y5
	VCVTDQ2PS Y5, Y5
	VMULSS (DI), X8, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS Y5, Y6, Y3
	// input 3
	VPMADDUBSW (R11), Y2, Y5
	VPMADDWD Y7, Y5, Y5
	MOVQ 24(SP), AX
	VPBROADCASTD (AX), Y10
	VPADDD Y10, Y5, Y5
	VCVTDQ2PS Y5, Y5
	VMULSS (DX), X8, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS Y5, Y6, Y13
	ADDQ $18, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $4, R12
	ADDQ $4, R13
	ADDQ $4, DI
	ADDQ $4, DX
	ADDQ $4, 0(SP)
	ADDQ $4, 8(SP)
	ADDQ $4, 16(SP)
	ADDQ $4, 24(SP)
	DECQ CX
	JMP d4q4loop
d4q4done:
	MOVQ out+40(FP), AX
	VEXTRACTF128 $1, Y0, X4
	VADDPS X4, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, 0(AX)
	VEXTRACTF128 $1, Y1, X4
	VADDPS X4, X1, X1
	VHADDPS X1, X1, X1
	VHADDPS X1, X1, X1
	VMOVSS X1, 4(AX)
	VEXTRACTF128 $1, Y3, X4
	VADDPS X4, X3, X3
	VHADDPS X3, X3, X3
	VHADDPS X3, X3, X3
	VMOVSS X3, 8(AX)
	VEXTRACTF128 $1, Y13, X4
	VADDPS X4, X13, X13
	VHADDPS X13, X13, X13
	VHADDPS X13, X13, X13
	VMOVSS X13, 12(AX)
	VZEROUPPER
	RET


DATA five16<>+0(SB)/4, $0x10101010
GLOBL five16<>(SB), RODATA|NOPTR, $4
DATA nib32<>+0(SB)/4, $0x0f0f0f0f
GLOBL nib32<>(SB), RODATA|NOPTR, $4

// dword shifts: none in the low half, a nibble in the high half
DATA shift0x4<>+0(SB)/8, $0
DATA shift0x4<>+8(SB)/8, $0
DATA shift0x4<>+16(SB)/8, $0
DATA shift0x4<>+24(SB)/8, $0
DATA shift0x4<>+32(SB)/8, $0x0000000400000004
DATA shift0x4<>+40(SB)/8, $0x0000000400000004
DATA shift0x4<>+48(SB)/8, $0x0000000400000004
DATA shift0x4<>+56(SB)/8, $0x0000000400000004
GLOBL shift0x4<>(SB), RODATA|NOPTR, $64

// Run g of a packed block (see packed.go): lane r of zw gets row r's four
// weights (rows 8..15 from the high nibbles).
#define Q4RUN(g, zw) \
	VBROADCASTI64X4 (32+32*g)(SI), zw \
	VPSRLVD Z26, zw, zw \
	VPANDD Z25, zw, zw

// The block's 16 row sums against one input: two chains of four runs each
// start from the input's bias (the second from zero), then the input's and
// the rows' scales take them into the float sums.
#define Q4INPUT(xq, xsb, acc, acc2, tmp, f) \
	VPBROADCASTD 4(xsb), acc \
	VPXORD acc2, acc2, acc2 \
	VPDPBUSD.BCST 0(xq), Z16, acc \
	VPDPBUSD.BCST 4(xq), Z17, acc2 \
	VPDPBUSD.BCST 8(xq), Z18, acc \
	VPDPBUSD.BCST 12(xq), Z19, acc2 \
	VPDPBUSD.BCST 16(xq), Z20, acc \
	VPDPBUSD.BCST 20(xq), Z21, acc2 \
	VPDPBUSD.BCST 24(xq), Z22, acc \
	VPDPBUSD.BCST 28(xq), Z23, acc2 \
	VPADDD acc2, acc, acc \
	VCVTDQ2PS acc, acc \
	VMULPS.BCST 0(xsb), Z24, tmp \
	VFMADD231PS acc, tmp, f

// Blocks ahead (16) are fetched into cache while this one computes: a
// group's blocks, and the next group's, lie end to end, and the hardware's
// own prefetch left the first pass over a group waiting on memory (a
// 37 MB matrix against 16 inputs: 105 GMAC/s without, 125-140 with).
#define Q4PREFETCH \
	PREFETCHT0 4608(SI) \
	PREFETCHT0 4672(SI) \
	PREFETCHT0 4736(SI) \
	PREFETCHT0 4800(SI) \
	PREFETCHT0 4864(SI)

#define Q4BLOCK \
	Q4PREFETCH \
	Q4RUN(0, Z16) \
	Q4RUN(1, Z17) \
	Q4RUN(2, Z18) \
	Q4RUN(3, Z19) \
	Q4RUN(4, Z20) \
	Q4RUN(5, Z21) \
	Q4RUN(6, Z22) \
	Q4RUN(7, Z23) \
	VCVTPH2PS (SI), Z24

// Run g of a packed Q5_0 block: Q4RUN's nibbles, and 16 added to the
// bytes whose fifth bit is set (Z27 holds 16 in every byte).
#define Q5RUN(g, zw) \
	Q4RUN(g, zw) \
	KMOVQ (288+8*g)(SI), K1 \
	VPADDB Z27, zw, K1, zw

// Blocks ahead (16) fetched as Q4PREFETCH does.
#define Q5PREFETCH \
	PREFETCHT0 5632(SI) \
	PREFETCHT0 5696(SI) \
	PREFETCHT0 5760(SI) \
	PREFETCHT0 5824(SI) \
	PREFETCHT0 5888(SI) \
	PREFETCHT0 5952(SI)

#define Q5BLOCK \
	Q5PREFETCH \
	VPBROADCASTD five16<>(SB), Z27 \
	Q5RUN(0, Z16) \
	Q5RUN(1, Z17) \
	Q5RUN(2, Z18) \
	Q5RUN(3, Z19) \
	Q5RUN(4, Z20) \
	Q5RUN(5, Z21) \
	Q5RUN(6, Z22) \
	Q5RUN(7, Z23) \
	VCVTPH2PS (SI), Z24

// A packed Q8_0 block (see packed.go): its eight runs of offset weights,
// and its rows' scales.
#define Q8PREFETCH \
	PREFETCHT0 8704(SI) \
	PREFETCHT0 8768(SI) \
	PREFETCHT0 8832(SI) \
	PREFETCHT0 8896(SI) \
	PREFETCHT0 8960(SI) \
	PREFETCHT0 9024(SI) \
	PREFETCHT0 9088(SI) \
	PREFETCHT0 9152(SI) \
	PREFETCHT0 9216(SI)

#define Q8BLOCK \
	Q8PREFETCH \
	VMOVDQU32 32(SI), Z16 \
	VMOVDQU32 96(SI), Z17 \
	VMOVDQU32 160(SI), Z18 \
	VMOVDQU32 224(SI), Z19 \
	VMOVDQU32 288(SI), Z20 \
	VMOVDQU32 352(SI), Z21 \
	VMOVDQU32 416(SI), Z22 \
	VMOVDQU32 480(SI), Z23 \
	VCVTPH2PS (SI), Z24

// A packed group's kernel against four inputs (see q4r16x4VNNI), its
// block read by BLOCK, blocks STRIDE bytes apart.
#define R16X4(BLOCK, STRIDE) \
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
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPBROADCASTD nib32<>(SB), Z25 \
	VMOVDQU32 shift0x4<>(SB), Z26 \
loop: \
	CMPQ CX, $0 \
	JLE done \
	BLOCK \
	Q4INPUT(R8, BX, Z0, Z4, Z12, Z8) \
	Q4INPUT(R9, DX, Z1, Z5, Z13, Z9) \
	Q4INPUT(R10, DI, Z2, Z6, Z14, Z10) \
	Q4INPUT(R11, R12, Z3, Z7, Z15, Z11) \
	ADDQ STRIDE, SI \
	ADDQ $32, R8 \
	ADDQ $32, R9 \
	ADDQ $32, R10 \
	ADDQ $32, R11 \
	ADDQ $8, BX \
	ADDQ $8, DX \
	ADDQ $8, DI \
	ADDQ $8, R12 \
	DECQ CX \
	JMP loop \
done: \
	MOVQ out+32(FP), AX \
	MOVQ ostride+40(FP), BX \
	VMOVUPS Z8, (AX) \
	VMOVUPS Z9, (AX)(BX*1) \
	VMOVUPS Z10, (AX)(BX*2) \
	LEAQ (AX)(BX*2), AX \
	VMOVUPS Z11, (AX)(BX*1) \
	VZEROUPPER \
	RET

// The same against one input (see q4r16x1VNNI).
#define R16X1(BLOCK, STRIDE) \
	MOVQ w+0(FP), SI \
	MOVQ xq+8(FP), R8 \
	MOVQ xsb+16(FP), BX \
	MOVQ nb+24(FP), CX \
	VPXORD Z8, Z8, Z8 \
	VPBROADCASTD nib32<>(SB), Z25 \
	VMOVDQU32 shift0x4<>(SB), Z26 \
loop: \
	CMPQ CX, $0 \
	JLE done \
	BLOCK \
	Q4INPUT(R8, BX, Z0, Z4, Z12, Z8) \
	ADDQ STRIDE, SI \
	ADDQ $32, R8 \
	ADDQ $8, BX \
	DECQ CX \
	JMP loop \
done: \
	MOVQ out+32(FP), AX \
	VMOVUPS Z8, 0(AX) \
	VZEROUPPER \
	RET

// func q4r16x4VNNI(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)
// Sixteen packed Q4_0 rows (a group, nb blocks) against four inputs: the
// 16 floats at out + k*ostride bytes get row r · input k. xsb[k] holds
// input k's scale and bias a block (q8Vec.sb). Needs AVX512F, AVX512VL
// and AVX512_VNNI.
TEXT ·q4r16x4VNNI(SB), NOSPLIT, $0-48
	R16X4(Q4BLOCK, $288)

// func q4r16x1VNNI(w *byte, xq *int8, xsb *uint32, nb int, out *float32)
// Sixteen packed Q4_0 rows against one input: out[r] = row r · input.
TEXT ·q4r16x1VNNI(SB), NOSPLIT, $0-40
	R16X1(Q4BLOCK, $288)

// func q5r16x4VNNI(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)
// q4r16x4VNNI for a packed Q5_0 group. Needs AVX512BW besides.
TEXT ·q5r16x4VNNI(SB), NOSPLIT, $0-48
	R16X4(Q5BLOCK, $352)

// func q5r16x1VNNI(w *byte, xq *int8, xsb *uint32, nb int, out *float32)
// q4r16x1VNNI for a packed Q5_0 group.
TEXT ·q5r16x1VNNI(SB), NOSPLIT, $0-40
	R16X1(Q5BLOCK, $352)

// func q8r16x4VNNI(w *byte, xq *[4]*int8, xsb *[4]*uint32, nb int, out *float32, ostride int)
// q4r16x4VNNI for a packed Q8_0 group.
TEXT ·q8r16x4VNNI(SB), NOSPLIT, $0-48
	R16X4(Q8BLOCK, $544)

// func q8r16x1VNNI(w *byte, xq *int8, xsb *uint32, nb int, out *float32)
// q4r16x1VNNI for a packed Q8_0 group.
TEXT ·q8r16x1VNNI(SB), NOSPLIT, $0-40
	R16X1(Q8BLOCK, $544)

DATA absmask<>+0(SB)/4, $0x7fffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $4
DATA signmask<>+0(SB)/4, $0x80000000
GLOBL signmask<>(SB), RODATA|NOPTR, $4
DATA f32half<>+0(SB)/4, $0x3f000000
GLOBL f32half<>(SB), RODATA|NOPTR, $4
DATA f32one<>+0(SB)/4, $0x3f800000
GLOBL f32one<>(SB), RODATA|NOPTR, $4
DATA f32q8max<>+0(SB)/4, $0x42fe0000
GLOBL f32q8max<>(SB), RODATA|NOPTR, $4
DATA packorder<>+0(SB)/4, $0
DATA packorder<>+4(SB)/4, $4
DATA packorder<>+8(SB)/4, $1
DATA packorder<>+12(SB)/4, $5
DATA packorder<>+16(SB)/4, $2
DATA packorder<>+20(SB)/4, $6
DATA packorder<>+24(SB)/4, $3
DATA packorder<>+28(SB)/4, $7
GLOBL packorder<>(SB), RODATA|NOPTR, $32

// y (8 floats, scaled) to integers rounded half to even, as llama.cpp's
// _mm256_round_ps(_MM_ROUND_NEAREST). Leaves int32s in y; adds them to
// Y15.
#define Q8ROUND(y) \
	VROUNDPS $0, y, y \
	VCVTTPS2DQ y, y \
	VPADDD y, Y15, Y15

// func quantizeQ8AVX2(x *float32, q *int8, d *float32, bias *int32, nb int)
// Each block of 32 floats to Q8_0 as quantizeGo does: d = amax/127 (kept
// rounded to f16), q = x * (127/amax) rounded half to even, bias = minus
// the sum of q.
TEXT ·quantizeQ8AVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ q+8(FP), DI
	MOVQ d+16(FP), DX
	MOVQ bias+24(FP), R8
	MOVQ nb+32(FP), CX
	VBROADCASTSS absmask<>(SB), Y11
	VMOVDQU packorder<>(SB), Y8
q8qloop:
	CMPQ CX, $0
	JLE q8qdone
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	// amax
	VANDPS Y11, Y0, Y4
	VANDPS Y11, Y1, Y5
	VANDPS Y11, Y2, Y6
	VANDPS Y11, Y3, Y7
	VMAXPS Y5, Y4, Y4
	VMAXPS Y7, Y6, Y6
	VMAXPS Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VMAXPS X5, X4, X4
	VMOVHLPS X4, X4, X5
	VMAXPS X5, X4, X4
	VMOVSHDUP X4, X5
	VMAXSS X5, X4, X4
	// d = amax / 127, id = 127 / amax (0 when amax is 0)
	VMOVSS f32q8max<>(SB), X5
	VDIVSS X5, X4, X6
	VCVTPS2PH $0, X6, X6
	VCVTPH2PS X6, X6
	VMOVSS X6, 0(DX)
	VXORPS X7, X7, X7
	VUCOMISS X7, X4
	JEQ q8qzero
	VDIVSS X4, X5, X5
	VBROADCASTSS X5, Y5
	VMULPS Y5, Y0, Y0
	VMULPS Y5, Y1, Y1
	VMULPS Y5, Y2, Y2
	VMULPS Y5, Y3, Y3
	VPXOR Y15, Y15, Y15
	Q8ROUND(Y0)
	Q8ROUND(Y1)
	Q8ROUND(Y2)
	Q8ROUND(Y3)
	VPACKSSDW Y1, Y0, Y0
	VPACKSSDW Y3, Y2, Y2
	VPACKSSWB Y2, Y0, Y0
	VPERMD Y0, Y8, Y0
	VMOVDQU Y0, 0(DI)
	// bias = -(sum of the quants)
	VEXTRACTI128 $1, Y15, X5
	VPADDD X5, X15, X15
	VPSHUFD $0x4e, X15, X5
	VPADDD X5, X15, X15
	VPSHUFD $0xb1, X15, X5
	VPADDD X5, X15, X15
	VMOVD X15, AX
	NEGL AX
	MOVL AX, 0(R8)
	JMP q8qnext
q8qzero:
	VPXOR Y0, Y0, Y0
	VMOVDQU Y0, 0(DI)
	MOVL $0, 0(R8)
q8qnext:
	ADDQ $128, SI
	ADDQ $32, DI
	ADDQ $4, DX
	ADDQ $4, R8
	DECQ CX
	JMP q8qloop
q8qdone:
	VZEROUPPER
	RET

DATA expconst<>+0(SB)/4, $0x3fb8aa3b  // log2(e)
DATA expconst<>+4(SB)/4, $0x3f318000  // ln2 high part, 0.693359375
DATA expconst<>+8(SB)/4, $0xb95e8083  // ln2 low part, -2.12194440e-4
DATA expconst<>+12(SB)/4, $0x42b0c0a5 // 88.3762626647949
DATA expconst<>+16(SB)/4, $0xc2aeac50 // -87.3365447504019
DATA expconst<>+20(SB)/4, $0x39506967 // polynomial, highest first (Cephes expf)
DATA expconst<>+24(SB)/4, $0x3ab743ce
DATA expconst<>+28(SB)/4, $0x3c088908
DATA expconst<>+32(SB)/4, $0x3d2aa9c1
DATA expconst<>+36(SB)/4, $0x3e2aaaaa
DATA expconst<>+40(SB)/4, $0x3f000000
GLOBL expconst<>(SB), RODATA|NOPTR, $44

// func siluMulAVX2(gate, up *float32, n int)
// gate[i] = gate[i] / (1 + e^-gate[i]) * up[i] for n floats (a multiple
// of 8): SwiGLU, with e^x as exp32 computes it (the argument clamped to
// the range where e^x is a finite, normal float32).
TEXT ·siluMulAVX2(SB), NOSPLIT, $0-24
	MOVQ gate+0(FP), DI
	MOVQ up+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS expconst<>+0(SB), Y8
	VBROADCASTSS expconst<>+4(SB), Y9
	VBROADCASTSS expconst<>+8(SB), Y10
	VBROADCASTSS expconst<>+12(SB), Y11
	VBROADCASTSS expconst<>+16(SB), Y12
	VBROADCASTSS f32half<>(SB), Y13
	VBROADCASTSS f32one<>(SB), Y14
	VBROADCASTSS signmask<>(SB), Y15
siluloop:
	CMPQ CX, $0
	JLE silufone
	VMOVUPS (DI), Y0
	VXORPS Y15, Y0, Y1
	VMINPS Y11, Y1, Y1
	VMAXPS Y12, Y1, Y1
	// x = -g = n ln2 + r
	VMOVAPS Y13, Y2
	VFMADD231PS Y8, Y1, Y2
	VROUNDPS $1, Y2, Y2
	VMOVAPS Y1, Y3
	VFNMADD231PS Y9, Y2, Y3
	VFNMADD231PS Y10, Y2, Y3
	// p(r)
	VBROADCASTSS expconst<>+20(SB), Y4
	VBROADCASTSS expconst<>+24(SB), Y5
	VFMADD213PS Y5, Y3, Y4
	VBROADCASTSS expconst<>+28(SB), Y5
	VFMADD213PS Y5, Y3, Y4
	VBROADCASTSS expconst<>+32(SB), Y5
	VFMADD213PS Y5, Y3, Y4
	VBROADCASTSS expconst<>+36(SB), Y5
	VFMADD213PS Y5, Y3, Y4
	VBROADCASTSS expconst<>+40(SB), Y5
	VFMADD213PS Y5, Y3, Y4
	// e^r = p r^2 + r + 1
	VMULPS Y3, Y3, Y5
	VADDPS Y14, Y3, Y6
	VFMADD231PS Y5, Y4, Y6
	// times 2^n
	VCVTPS2DQ Y2, Y2
	VPSLLD $23, Y2, Y2
	VPADDD Y2, Y6, Y6
	// g / (1 + e^-g) * up
	VADDPS Y14, Y6, Y6
	VDIVPS Y6, Y0, Y0
	VMULPS (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $8, CX
	JMP siluloop
silufone:
	VZEROUPPER
	RET


// func f32r4x4AVX512(w *float32, wstride int, x *float32, xstride int, n int, out *[16]float32)
// Four F32 rows (w, w+wstride, ... in elements) against four inputs (x,
// x+xstride, ...): out[4r+k] = row r · input k over n floats (a multiple
// of 16). Each 16 floats of a row meet the four inputs from registers:
// two multiply-adds a load. Needs AVX512F and AVX512VL.
TEXT ·f32r4x4AVX512(SB), NOSPLIT, $0-48
	R4X4(VMOVUPS, NOWIDEN, $2, $64)

// func f16r4x4AVX512(w *uint16, wstride int, x *float32, xstride int, n int, out *[16]float32)
// f32r4x4AVX512 for F16 rows (converted 16 at a time as they load).
TEXT ·f16r4x4AVX512(SB), NOSPLIT, $0-48
	R4X4(VCVTPH2PS, NOWIDEN, $1, $32)

// func bf16r4x4AVX512(w *uint16, wstride int, x *float32, xstride int, n int, out *[16]float32)
// f32r4x4AVX512 for BF16 rows (widened 16 at a time as they load).
TEXT ·bf16r4x4AVX512(SB), NOSPLIT, $0-48
	R4X4(VPMOVZXWD, BF16WIDEN, $1, $32)


// func maxF32AVX2(x *float32, n int) float32
// n a multiple of 32: four accumulators, so that no max waits for the one
// before it.
TEXT ·maxF32AVX2(SB), NOSPLIT, $0-20
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VMOVUPS 0(SI), Y0
	VMOVAPS Y0, Y1
	VMOVAPS Y0, Y2
	VMOVAPS Y0, Y3
maxloop:
	CMPQ CX, $0
	JLE maxdone
	VMAXPS 0(SI), Y0, Y0
	VMAXPS 32(SI), Y1, Y1
	VMAXPS 64(SI), Y2, Y2
	VMAXPS 96(SI), Y3, Y3
	ADDQ $128, SI
	SUBQ $32, CX
	JMP maxloop
maxdone:
	VMAXPS Y1, Y0, Y0
	VMAXPS Y3, Y2, Y2
	VMAXPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	VMOVSS X0, ret+16(FP)
	VZEROUPPER
	RET
