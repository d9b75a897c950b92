//go:build !amd64 || purego

package llama

// halveRow stores src in dst rounded to the nearest F16 values.
func halveRow(dst []uint16, src []float32) { halveRowGo(dst, src) }

// roundHalf rounds x's values to the nearest F16 values, kept as float32.
func roundHalf(x []float32) { roundHalfGo(x) }

// scoresStridedHalf is scoresStrided over F16 keys.
func scoresStridedHalf(q []float32, base []uint16, stride int, scale float32, out []float32) {
	scoresStridedHalfGo(q, base, stride, scale, out)
}

// accumulateStridedHalf is accumulateStrided over F16 values.
func accumulateStridedHalf(a []float32, v []uint16, stride int, y []float32) {
	accumulateStridedHalfGo(a, v, stride, y)
}
