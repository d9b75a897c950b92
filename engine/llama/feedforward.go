package llama

import (
	"math"

	"github.com/tpsbench/tpsbench/engine/half"
)

// gluChunk is how many SwiGLU elements make one unit of pool work.
const gluChunk = 512

// geluTable is ggml's GELU: computed once for every F16 value, and looked
// up by the input rounded to F16 (llama.cpp's GGML_GELU_FP16).
var geluTable = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	const a, s = 0.044715, 0.79788456080286535587989211986876
	for i := range t {
		x := half.ToFloat32(uint16(i))
		g := float32(0.5) * x * (1 + float32(math.Tanh(float64(float32(s)*x*(1+float32(a)*x*x)))))
		t[i] = half.ToFloat32(half.FromFloat32(g))
	}
	return &t
}()

// geluMul sets gate[j] = GELU(gate[j]) * up[j], as ggml_vec_geglu_f32.
func geluMul(gate, up []float32) {
	up = up[:len(gate)]
	for j, g := range gate {
		switch {
		case g <= -10:
			gate[j] = 0
		case g >= 10:
			gate[j] = g * up[j]
		default:
			gate[j] = geluTable[half.FromFloat32(g)] * up[j]
		}
	}
}

// gate runs the feed-forward's gate over units [lo, hi) of gluChunk
// values.
func (p *pass) gate(lo, hi int) {
	p.glu.act(p.glu.gate[lo*gluChunk:min(hi*gluChunk, len(p.glu.gate))], p.glu.up[lo*gluChunk:])
}
