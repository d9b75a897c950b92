package llama

import (
	"strings"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// The forms activations take for products with a matrix (inputForm):
// products of matrices with the same form share their prepared inputs.
const (
	formF32        = iota // as is
	formF16               // rounded to F16
	formQ8_0              // quantized to Q8_0 blocks
	formPackedQ4          // Q8_0 with the packed Q4_0 kernels' scales and biases
	formPackedQ8          // Q8_0 with the packed Q8_0 kernels' scales and biases
	formQ8_1              // Q8_0 and each block's d*sum(q)
	formQ8K               // quantized to Q8_K super-blocks
	formBF16              // rounded to bfloat16
	formPackedQ4K         // Q8_K with each 32 values' sum, for packed Q4_K
	formPackedQ5_0        // Q8_0 with the packed Q5_0 kernels' scales and biases
)

// rowFormat computes with a format that has no hand-tiled kernel: a row's
// values (embeddings, norms) and a row's product with one input.
type rowFormat struct {
	form   int
	dot    func(row []byte, in *vecInput) float32
	decode func(dst []float32, row []byte)
}

func kQuant(k kFormat) rowFormat {
	return rowFormat{formQ8K, func(row []byte, in *vecInput) float32 { return k.dot(row, &in.q8k) }, k.decode}
}

func quant32(f block32, form int) rowFormat {
	return rowFormat{form, func(row []byte, in *vecInput) float32 { return f.dot(row, &in.q8) }, f.decode}
}

// q4KPacked, q5KPacked and q3KPacked compute with Q4_K, Q5_K and Q3_K
// matrices repacked at load (repackK, repackQ3K), where the assembly
// kernels run.
var (
	q4KPacked = kQuant(kQ4Packed)
	q5KPacked = kQuant(kQ5Packed)
	q3KPacked = kQuant(kQ3Packed)
)

// rowFormats are the formats beyond F32, F16, Q8_0 and Q4_0.
var rowFormats = map[gguf.TensorType]rowFormat{
	gguf.Q2_K: kQuant(kQ2), gguf.Q3_K: kQuant(kQ3), gguf.Q4_K: kQuant(kQ4),
	gguf.Q5_K: kQuant(kQ5), gguf.Q6_K: kQuant(kQ6),
	gguf.Q4_1: quant32(bQ4_1, formQ8_1), gguf.Q5_0: quant32(bQ5_0, formQ8_0), gguf.Q5_1: quant32(bQ5_1, formQ8_1),
	gguf.BF16: {formBF16, func(row []byte, in *vecInput) float32 { return dotBF16(row, in.f) }, decodeBF16},
}

// Formats lists the weight formats the engine computes with.
func Formats() []gguf.TensorType {
	out := []gguf.TensorType{typeF32, typeF16, gguf.BF16, typeQ8_0, typeQ4_0, gguf.Q4_1, gguf.Q5_0, gguf.Q5_1,
		gguf.Q2_K, gguf.Q3_K, gguf.Q4_K, gguf.Q5_K, gguf.Q6_K}
	return out
}

func supportedFormats() string {
	var names []string
	for _, t := range Formats() {
		names = append(names, t.String())
	}
	return strings.Join(names, ", ")
}
