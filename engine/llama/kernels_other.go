//go:build !amd64 || purego

package llama

import "github.com/tpsbench/tpsbench/engine/gguf"

// Kernels names the dot-product implementation in use.
func Kernels() string { return "go" }

func dotF32(a, b []float32) float32          { return dotF32Go(a, b) }
func maxF32(x []float32) float32             { return maxF32Go(x) }
func dotF16(a []uint16, b []float32) float32 { return dotF16Go(a, b) }
func dotQ8(row []byte, x *q8Vec) float32     { return dotQ8Go(row, x) }
func dotQ4(row []byte, x *q8Vec) float32     { return dotQ4Go(row, x) }

func (m *Matrix) rowBatch4(out *[4]float32, r int, ins []vecInput) bool { return false }

func (m *Matrix) tile4x4(out []float32, ins []vecInput, first, lo, hi int) int { return lo }

func floatP2(typ gguf.TensorType, w []byte, ins []vecInput, inOne bool, out []float32, ostride int) {
	floatP2Go(typ, w, ins, out, ostride)
}

func floatW1x4(typ gguf.TensorType, w []byte, x []float32, out []float32) {
	floatW1x4Go(typ, w, x, out)
}

// The packed Q4_0 layout is for the VNNI kernels; here its portable
// kernels exist for the tests.
const (
	vnni       = false
	simd       = false
	packFloats = false
	packAVX2   = false
)

func q4r16x1(w []byte, x *q8Vec, out *[16]float32) { q4r16x1Go(w, x, out) }
func q8r16x1(w []byte, x *q8Vec, out *[16]float32) { q8r16x1Go(w, x, out) }
func q5r16x1(w []byte, x *q8Vec, out *[16]float32) { q5r16x1Go(w, x, out) }

func q4r16x4(w []byte, ins []vecInput, out []float32, stride int) {
	for k := range 4 {
		q4r16x1Go(w, &ins[k].q8, (*[16]float32)(out[k*stride:]))
	}
}

func q8r16x4(w []byte, ins []vecInput, out []float32, stride int) {
	for k := range 4 {
		q8r16x1Go(w, &ins[k].q8, (*[16]float32)(out[k*stride:]))
	}
}

func q5r16x4(w []byte, ins []vecInput, out []float32, stride int) {
	for k := range 4 {
		q5r16x1Go(w, &ins[k].q8, (*[16]float32)(out[k*stride:]))
	}
}

func (v *q8Vec) quantizeBlocks(x []float32) { v.quantizeGo(x) }

func siluMul(gate, up []float32) { siluMulGo(gate, up) }

func axpy(a float32, x, y []float32) { axpyGo(a, x, y) }

func scoresStrided(q, base []float32, stride int, scale float32, out []float32) {
	scoresStridedGo(q, base, stride, scale, out)
}

func accumulateStrided(a, v []float32, stride int, y []float32) { accumulateStridedGo(a, v, stride, y) }

func (k kFormat) dot(row []byte, x *q8kVec) float32 { return k.dotGo(row, x) }

func (f block32) dot(row []byte, x *q8Vec) float32 { return f.dotGo(row, x) }

func dotBF16(row []byte, x []float32) float32 { return dotBF16Go(row, x) }

func q4kr16x1(w []byte, x *q8kVec, out *[16]float32) { q4kr16x1Go(w, x, out) }

func q4kr16x4(w []byte, ins []vecInput, out []float32, stride int) {
	for k := range 4 {
		q4kr16x1Go(w, &ins[k].q8k, (*[16]float32)(out[k*stride:]))
	}
}

func q6kr16x1(w []byte, x *q8kVec, out *[16]float32) { q6kr16x1Go(w, x, out) }

func q6kr16x4(w []byte, ins []vecInput, out []float32, stride int) {
	for k := range 4 {
		q6kr16x1Go(w, &ins[k].q8k, (*[16]float32)(out[k*stride:]))
	}
}
