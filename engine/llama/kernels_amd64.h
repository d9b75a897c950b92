// Macros the assembly files share.

// BF16 weights widen to float32 by a shift after they load zero-extended
// (BF16WIDEN); F32 and F16 ones need nothing more (NOWIDEN).
#define NOWIDEN(z)
#define BF16WIDEN(z) VPSLLD $16, z, z

// ZERO8 clears Z0-Z7, the eight sums of the batch-1 float kernel.
#define ZERO8 \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3 \
	VPXORD Z4, Z4, Z4 \
	VPXORD Z5, Z5, Z5 \
	VPXORD Z6, Z6, Z6 \
	VPXORD Z7, Z7, Z7

// ZERO16 clears Z0-Z15, the sixteen sums of the tiled kernels.
#define ZERO16 \
	ZERO8 \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPXORD Z12, Z12, Z12 \
	VPXORD Z13, Z13, Z13 \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15

// Folding 512-bit accumulators' lanes into sums. Z24 and Z25 are scratch.

// two accumulators' sums so far, halved: a = [a's lanes 0-7 + 8-15 |
// b's lanes 0-7 + 8-15] (128-bit lanes of a and b, imm 0x44 and 0xEE)
#define FOLD512(a, b) \
	VSHUFF64X2 $0x44, b, a, Z24 \
	VSHUFF64X2 $0xEE, b, a, Z25 \
	VADDPS Z25, Z24, a

// from two folded pairs, each 128-bit lane one accumulator's four sums
#define FOLD256(a, b) \
	VSHUFF64X2 $0x88, b, a, Z24 \
	VSHUFF64X2 $0xDD, b, a, Z25 \
	VADDPS Z25, Z24, a

// within each 128-bit lane, halve two vectors' sums into one
#define FOLD128(a, b, lo, hi) \
	VSHUFPS lo, b, a, Z24 \
	VSHUFPS hi, b, a, Z25 \
	VADDPS Z25, Z24, a

// FOLD16 leaves the sums of Z0-Z15's 16 lanes in Z0, transposed: lane
// 4i+j is Z(4j+i)'s sum. Folding the sixteen vectors into one takes 45
// instructions where summing each alone took 176.
#define FOLD16 \
	FOLD512(Z0, Z1) \
	FOLD512(Z2, Z3) \
	FOLD512(Z4, Z5) \
	FOLD512(Z6, Z7) \
	FOLD512(Z8, Z9) \
	FOLD512(Z10, Z11) \
	FOLD512(Z12, Z13) \
	FOLD512(Z14, Z15) \
	FOLD256(Z0, Z2) \
	FOLD256(Z4, Z6) \
	FOLD256(Z8, Z10) \
	FOLD256(Z12, Z14) \
	FOLD128(Z0, Z4, $0x44, $0xEE) \
	FOLD128(Z8, Z12, $0x44, $0xEE) \
	FOLD128(Z0, Z8, $0x88, $0xDD)

// REDUCE16 stores FOLD16's sums to out.
#define REDUCE16(out) \
	FOLD16 \
	VMOVUPS Z0, (out)

