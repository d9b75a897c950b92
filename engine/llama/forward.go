package llama

import (
	"fmt"
	"math"
)

// Sequence is one generation's state: its position and KV cache.
type Sequence struct {
	m   *Model
	pos int
	// k[l] and v[l] hold every cached position's keys and values of layer l,
	// position-major; they grow as the sequence does, up to the context.
	k, v [][]float32
}

// NewSequence starts an empty sequence, with cache room reserved for
// capacity positions (it grows past that, up to the context length).
func (m *Model) NewSequence(capacity int) *Sequence {
	capacity = min(max(capacity, 1), m.Context)
	s := &Sequence{m: m, k: make([][]float32, m.Layers), v: make([][]float32, m.Layers)}
	for l := range s.k {
		s.k[l] = make([]float32, 0, capacity*m.KVDim())
		s.v[l] = make([]float32, 0, capacity*m.KVDim())
	}
	return s
}

// Pos is the number of tokens the sequence holds.
func (s *Sequence) Pos() int { return s.pos }

// CacheBytes is the memory the sequence's KV cache holds.
func (s *Sequence) CacheBytes() int {
	n := 0
	for l := range s.k {
		n += 4 * (cap(s.k[l]) + cap(s.v[l]))
	}
	return n
}

// Forward feeds one token at the sequence's next position and returns the
// logits for the token after it. The slice is the model's and is valid
// until the next Forward on any sequence of the model.
func (s *Sequence) Forward(token int) ([]float32, error) {
	m := s.m
	if token < 0 || token >= m.Vocab {
		return nil, fmt.Errorf("token %d is outside the vocabulary of %d", token, m.Vocab)
	}
	if s.pos >= m.Context {
		return nil, fmt.Errorf("the context of %d tokens is full", m.Context)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st := &m.st
	c := m.Config
	hd, kvDim := c.HeadDim(), c.KVDim()
	group := c.Heads / c.KVHeads
	pos := s.pos
	dequantRow(st.x, m.tokEmb, token)
	for l := range m.layers {
		ly := &m.layers[l]
		rmsNorm(st.xb, st.x, ly.attnNorm, c.Eps)
		m.matVec(st.q, ly.wq, st.xb)
		m.matVec(st.k, ly.wk, st.xb)
		m.matVec(st.v, ly.wv, st.xb)
		rope(st.q, c.Heads, hd, c.RopeDim, pos, c.RopeBase)
		rope(st.k, c.KVHeads, hd, c.RopeDim, pos, c.RopeBase)
		s.k[l] = append(s.k[l], st.k...)
		s.v[l] = append(s.v[l], st.v...)
		kc, vc := s.k[l], s.v[l]
		scale := float32(1 / math.Sqrt(float64(hd)))
		for h := 0; h < c.Heads; h++ {
			q := st.q[h*hd : (h+1)*hd]
			kvOff := (h / group) * hd
			att := st.att[:pos+1]
			for t := 0; t <= pos; t++ {
				att[t] = dotF32(q, kc[t*kvDim+kvOff:t*kvDim+kvOff+hd]) * scale
			}
			softmax(att)
			out := st.xb[h*hd : (h+1)*hd]
			clear(out)
			for t := 0; t <= pos; t++ {
				a := att[t]
				vr := vc[t*kvDim+kvOff : t*kvDim+kvOff+hd]
				for i := range out {
					out[i] += a * vr[i]
				}
			}
		}
		m.matVec(st.xb2, ly.wo, st.xb)
		for i := range st.x {
			st.x[i] += st.xb2[i]
		}
		rmsNorm(st.xb, st.x, ly.ffnNorm, c.Eps)
		m.matVec(st.hb, ly.wGate, st.xb)
		m.matVec(st.hb2, ly.wUp, st.xb)
		for i, g := range st.hb {
			st.hb[i] = g / (1 + float32(math.Exp(float64(-g)))) * st.hb2[i] // SiLU(gate) * up
		}
		m.matVec(st.xb2, ly.wDown, st.hb)
		for i := range st.x {
			st.x[i] += st.xb2[i]
		}
	}
	rmsNorm(st.xb, st.x, m.outNorm, c.Eps)
	m.matVec(st.logits, m.output, st.xb)
	s.pos++
	return st.logits, nil
}

// rope rotates each head's pairs (2i, 2i+1) by pos * base^(-2i/dims), the
// "normal" RoPE of llama.cpp's llama architecture.
func rope(x []float32, heads, hd, dims, pos int, base float32) {
	for i := 0; i < dims; i += 2 {
		theta := float64(pos) * math.Pow(float64(base), -float64(i)/float64(dims))
		sin, cos := math.Sincos(theta)
		s, c := float32(sin), float32(cos)
		for h := 0; h < heads; h++ {
			v := x[h*hd+i : h*hd+i+2]
			x0, x1 := v[0], v[1]
			v[0] = x0*c - x1*s
			v[1] = x0*s + x1*c
		}
	}
}

func softmax(x []float32) {
	mx := x[0]
	for _, v := range x[1:] {
		mx = max(mx, v)
	}
	var sum float64
	for i, v := range x {
		e := float32(math.Exp(float64(v - mx)))
		x[i] = e
		sum += float64(e)
	}
	inv := float32(1 / sum)
	for i := range x {
		x[i] *= inv
	}
}
