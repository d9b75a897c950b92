package llama

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/half"
)

// Reference is the llama forward pass written to be read in one sitting:
// float64, one token at a time, every weight decoded from the file's bytes
// where it is used. It is the specification Model.Step must match (the
// package's tests compare every logit) and the place to start reading the
// engine: Model.Step does the same arithmetic in float32, on many
// sequences at once, with the weights' own kernels on a pool of threads.
// It is far too slow to serve.
type Reference struct {
	f      *gguf.File
	c      Config
	k, v   [][][]float64 // per layer, per position: the KV cache
	layers []string      // tensor name prefix of each block
	views  map[string]*gguf.Tensor
}

// NewReference prepares a reference pass over f's weights, shaped as c
// (Load reads c from f's metadata).
func NewReference(f *gguf.File, c Config) *Reference {
	r := &Reference{f: f, c: c, k: make([][][]float64, c.Layers), v: make([][][]float64, c.Layers), views: map[string]*gguf.Tensor{}}
	for l := 0; l < c.Layers; l++ {
		r.layers = append(r.layers, fmt.Sprintf("blk.%d.", l))
		_ = splitFused(f, r.layers[l], c, r.views) // phi3's fused q/k/v and gate/up, as the separate tensors
	}
	return r
}

// Forward runs token at the next position and returns the logits.
func (r *Reference) Forward(token int) []float64 {
	c := r.c
	pos := len(r.k[0])
	hd := c.HeadDim()
	x := append([]float64(nil), r.matrix("token_embd.weight")[token]...)
	if c.EmbedScale != 0 { // gemma: embeddings times sqrt(Dim)
		for i := range x {
			x[i] *= float64(c.EmbedScale)
		}
	}
	scale := 1 / math.Sqrt(float64(hd))
	if c.AttnScale != 0 {
		scale = float64(c.AttnScale)
	}
	for l, p := range r.layers {
		// attention: x += Wo · attention(rope(Wq·n), rope(Wk·n), Wv·n)
		n := norm64(x, r.vector(p+"attn_norm.weight"), float64(c.Eps))
		q, k, v := r.times(p+"attn_q.weight", n), r.times(p+"attn_k.weight", n), r.times(p+"attn_v.weight", n)
		r.addBias(q, p+"attn_q.bias") // qwen2's biases; llama has none
		r.addBias(k, p+"attn_k.bias")
		r.addBias(v, p+"attn_v.bias")
		r.headNorm(q, p+"attn_q_norm.weight") // qwen3's and gemma3's per-head norms
		r.headNorm(k, p+"attn_k_norm.weight")
		r.rope(q, pos, c.Slides(l))
		r.rope(k, pos, c.Slides(l))
		r.k[l], r.v[l] = append(r.k[l], k), append(r.v[l], v)
		first := 0 // the first key attended to: the window's, for a layer that slides (gemma2, gemma3)
		if c.Slides(l) {
			first = max(0, pos+1-c.Window)
		}
		att := make([]float64, c.QDim())
		for h := 0; h < c.Heads; h++ {
			kv := h / (c.Heads / c.KVHeads) // grouped-query: heads share a key/value head
			scores := make([]float64, pos+1-first)
			for t := range scores {
				for i := 0; i < hd; i++ {
					scores[t] += q[h*hd+i] * r.k[l][first+t][kv*hd+i]
				}
				scores[t] *= scale
				if c.AttnSoftcap > 0 { // gemma2: capped by tanh
					scores[t] = float64(c.AttnSoftcap) * math.Tanh(scores[t]/float64(c.AttnSoftcap))
				}
			}
			softmax64(scores)
			for t, s := range scores {
				for i := 0; i < hd; i++ {
					att[h*hd+i] += s * r.v[l][first+t][kv*hd+i]
				}
			}
		}
		add64(x, r.postNorm(r.times(p+"attn_output.weight", att), p+"post_attention_norm.weight"))

		// feed-forward: x += Wdown · (silu(Wgate·n) * Wup·n), GELU for gemma
		n = norm64(x, r.vector(p+"ffn_norm.weight"), float64(c.Eps))
		g, u := r.times(p+"ffn_gate.weight", n), r.times(p+"ffn_up.weight", n)
		for i := range g {
			if c.GELU { // the F16 table ggml and the engine look GELU up in
				switch gv := g[i]; {
				case gv <= -10:
					g[i] = 0
				case gv >= 10:
					g[i] = gv * u[i]
				default:
					g[i] = float64(geluTable[half.FromFloat32(float32(gv))]) * u[i]
				}
				continue
			}
			g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
		}
		add64(x, r.postNorm(r.times(p+"ffn_down.weight", g), p+"post_ffw_norm.weight"))
	}
	out := "output.weight"
	if r.f.Tensor(out) == nil {
		out = "token_embd.weight" // tied embeddings
	}
	logits := r.times(out, norm64(x, r.vector("output_norm.weight"), float64(c.Eps)))
	if c.FinalSoftcap > 0 { // gemma2
		for i, v := range logits {
			logits[i] = float64(c.FinalSoftcap) * math.Tanh(v/float64(c.FinalSoftcap))
		}
	}
	return logits
}

// postNorm RMS-normalises a sub-layer's output by the named weight, if the
// file has it (gemma2's and gemma3's post-norms).
func (r *Reference) postNorm(x []float64, name string) []float64 {
	if r.f.Tensor(name) == nil {
		return x
	}
	return norm64(x, r.vector(name), float64(r.c.Eps))
}

// rope turns each head's pairs (2i, 2i+1), or (i, i+RopeDim/2) for neox,
// i < RopeDim/2, by the angle and magnitude of Config.ropeAngle (held to
// llama.cpp's by the conformance tests) in float64.
func (r *Reference) rope(x []float64, pos int, slides bool) {
	hd, dims := r.c.HeadDim(), r.c.RopeDim
	for h := 0; h < len(x)/hd; h++ {
		for i := 0; i < dims; i += 2 {
			theta, mag := r.c.ropeAngle(pos, i, slides)
			sin, cos := math.Sincos(theta)
			sin, cos = sin*mag, cos*mag
			ia, ib := h*hd+i, h*hd+i+1
			if r.c.RopeNeox {
				ia, ib = h*hd+i/2, h*hd+i/2+dims/2
			}
			a, b := x[ia], x[ib]
			x[ia], x[ib] = a*cos-b*sin, a*sin+b*cos
		}
	}
}

// headNorm RMS-normalises each head of x by the named weight, if the file
// has it.
func (r *Reference) headNorm(x []float64, name string) {
	if r.f.Tensor(name) == nil {
		return
	}
	w := r.vector(name)
	for h := 0; h < len(x)/len(w); h++ {
		copy(x[h*len(w):], norm64(x[h*len(w):(h+1)*len(w)], w, float64(r.c.Eps)))
	}
}

// addBias adds the named bias vector, if the file has it.
func (r *Reference) addBias(x []float64, name string) {
	if r.f.Tensor(name) != nil {
		add64(x, r.vector(name))
	}
}

// times multiplies the named weight by x as the engine does: x is first
// rounded to what the weight's kernel multiplies with.
func (r *Reference) times(name string, x []float64) []float64 {
	x = kernelInput(r.tensor(name).Type, x)
	w := r.matrix(name)
	out := make([]float64, len(w))
	for i, row := range w {
		for j, v := range row {
			out[i] += v * x[j]
		}
	}
	return out
}

// tensor is the named tensor of the file, or a view of a fused one.
func (r *Reference) tensor(name string) *gguf.Tensor {
	if t := r.views[name]; t != nil {
		return t
	}
	return r.f.Tensor(name)
}

func (r *Reference) matrix(name string) [][]float64 {
	t := r.tensor(name)
	cols, rows := int(t.Dims[0]), int(t.Dims[1])
	rb := t.Type.RowBytes(cols)
	out := make([][]float64, rows)
	for i := range out {
		out[i] = decodeRow(t.Type, t.Data[i*rb:(i+1)*rb], cols)
	}
	return out
}

func (r *Reference) vector(name string) []float64 {
	t := r.f.Tensor(name)
	return decodeRow(t.Type, t.Data, int(t.Dims[0]))
}

// kernelInput is what the engine multiplies a weight of this format with:
// as llama.cpp, activations are rounded to F16 for F16 weights and
// quantized to Q8_0 (blocks of 32, scale amax/127 stored as F16) for
// Q8_0 and Q4_0 weights.
func kernelInput(typ gguf.TensorType, x []float64) []float64 {
	out := make([]float64, len(x))
	switch typ {
	case gguf.F32:
		copy(out, x)
	case gguf.F16:
		for i, v := range x {
			out[i] = float64(half.ToFloat32(half.FromFloat32(float32(v))))
		}
	default:
		for b := 0; b < len(x); b += 32 {
			amax := 0.0
			for _, v := range x[b : b+32] {
				amax = math.Max(amax, math.Abs(v))
			}
			d := amax / 127
			d16 := float64(half.ToFloat32(half.FromFloat32(float32(d))))
			for j, v := range x[b : b+32] {
				q := 0.0
				if d != 0 {
					q = math.Round(v / d)
				}
				out[b+j] = q * d16
			}
		}
	}
	return out
}

// decodeRow decodes n values of a row from the GGUF block layouts,
// independently of the engine's kernels.
func decodeRow(typ gguf.TensorType, b []byte, n int) []float64 {
	out := make([]float64, n)
	le := binary.LittleEndian
	switch typ {
	case gguf.F32:
		for i := range out {
			out[i] = float64(math.Float32frombits(le.Uint32(b[4*i:])))
		}
	case gguf.F16:
		for i := range out {
			out[i] = float64(half.ToFloat32(le.Uint16(b[2*i:])))
		}
	case gguf.Q8_0: // blocks of 32: an F16 scale, 32 int8
		for blk := 0; blk < n/32; blk++ {
			d := float64(half.ToFloat32(le.Uint16(b[blk*34:])))
			for j := 0; j < 32; j++ {
				out[blk*32+j] = d * float64(int8(b[blk*34+2+j]))
			}
		}
	case gguf.Q4_0: // blocks of 32: an F16 scale, 16 bytes of two 4-bit values less 8
		for blk := 0; blk < n/32; blk++ {
			d := float64(half.ToFloat32(le.Uint16(b[blk*18:])))
			for j := 0; j < 16; j++ {
				v := b[blk*18+2+j]
				out[blk*32+j] = d * float64(int(v&15)-8)
				out[blk*32+j+16] = d * float64(int(v>>4)-8)
			}
		}
	default: // the formats llama.cpp's quantizer writes: the conformance test checks their decoding
		row := make([]float32, n)
		rowFormats[typ].decode(row, b)
		for i, v := range row {
			out[i] = float64(v)
		}
	}
	return out
}

func norm64(x, w []float64, eps float64) []float64 {
	ss := 0.0
	for _, v := range x {
		ss += v * v
	}
	s := 1 / math.Sqrt(ss/float64(len(x))+eps)
	out := make([]float64, len(x))
	for i := range x {
		out[i] = x[i] * s * w[i]
	}
	return out
}

func softmax64(x []float64) {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	sum := 0.0
	for i, v := range x {
		x[i] = math.Exp(v - mx)
		sum += x[i]
	}
	for i := range x {
		x[i] /= sum
	}
}

func add64(x, y []float64) {
	for i := range x {
		x[i] += y[i]
	}
}
