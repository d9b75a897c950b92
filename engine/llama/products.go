package llama

import (
	"fmt"
	"slices"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// Product multiplies the weight matrix of the named tensor by x as a
// forward pass does (x converted to the weight's input form, the
// format's kernel), so that each product can be held to another engine's
// on that engine's own inputs.
func (m *Model) Product(tensor string, x []float32) ([]float32, error) {
	out, err := m.Products(tensor, [][]float32{x})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Products is Product of a batch of inputs in one pass, as a step of
// len(xs) entries multiplies them: the batched kernels (four inputs a
// row, the packed kernels' widths) and their tails.
func (m *Model) Products(tensor string, xs [][]float32) ([][]float32, error) {
	w := m.weights[tensor]
	if w == nil {
		return nil, fmt.Errorf("the model has no weight matrix %s", tensor)
	}
	if len(xs) == 0 {
		return nil, nil
	}
	x := make([]float32, 0, len(xs)*w.Cols)
	for i, row := range xs {
		if len(row) != w.Cols {
			return nil, fmt.Errorf("%s takes %d values, not %d (input %d)", tensor, w.Cols, len(row), i)
		}
		x = append(x, row...)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.grow(m.Config, len(xs), 1)
	flat := make([]float32, len(xs)*w.Rows)
	m.matMul(flat, w, x, len(xs))
	out := make([][]float32, len(xs))
	for i := range out {
		out[i] = flat[i*w.Rows : (i+1)*w.Rows]
	}
	return out, nil
}

// product is one weight matrix's share of a pass: out[b*w.Rows+r] =
// w[r] · x[b], over units [first, first+units) of the pass (rows, or
// groups of 16 rows for packed matrices).
type product struct {
	out          []float32
	w            *Matrix
	first, units int
}

// matMul computes, for each of the n rows of x (each w.Cols long), the
// products with every row of w: out[b*w.Rows+r] = w[r] · x[b]. Each weight
// row is read once for the whole batch.
func (m *Model) matMul(out []float32, w *Matrix, x []float32, n int) {
	m.matMuls(x, n, product{out: out, w: w})
}

// matMuls computes several products of the same x (q, k and v; gate and
// up): the inputs are prepared once, and the products share one pass
// over the threads, so no thread waits between them. Matrices that take
// their inputs in different forms go one after another.
func (m *Model) matMuls(x []float32, n int, ps ...product) {
	for _, p := range ps[1:] {
		if inputForm(p.w) != inputForm(ps[0].w) || p.w.Cols != ps[0].w.Cols {
			for _, p := range ps {
				m.matMuls(x, n, p)
			}
			return
		}
	}
	m.prepareInputs(ps[0].w, x, n)
	// A batch-1 packed float product goes fastest four units a call
	// (floatW1x4), which a thread's share of units gives it only if the
	// pool hands them out in fours and each matrix starts at a four: split
	// in units, q, k and v of the default model (9 units each) never had
	// four of one matrix in a share.
	grain := 1
	if n == 1 && ps[0].w.packed != nil && isFloat(ps[0].w.Type) {
		grain = floatW1Units
	}
	total := 0
	for i, p := range ps {
		total = (total + grain - 1) / grain * grain
		p.first, p.units = total, p.w.Rows
		if p.w.packed != nil {
			p.units = p.w.Rows / unitRows(p.w.Type)
		}
		total += p.units
		m.mm.jobs[i] = p
	}
	m.mm.njobs, m.mm.grain = len(ps), grain
	m.pool.Run((total+grain-1)/grain, m.mmUnits)
}

// productUnits runs grains [lo, hi) of the pass being run (mm.grain units
// each).
func (p *pass) productUnits(lo, hi int) {
	lo, hi = lo*p.mm.grain, hi*p.mm.grain
	for _, job := range p.mm.jobs[:p.mm.njobs] {
		a, b := max(lo, job.first)-job.first, min(hi, job.first+job.units)-job.first
		if a >= b {
			continue
		}
		if job.w.packed != nil {
			job.w.rowsPacked(job.out, p.mm.ins, a, b)
		} else {
			job.w.rowsBatch(job.out, p.mm.ins, a, b)
		}
	}
}

// inputForm tells apart the forms activations take for products with a
// matrix (formats.go). Packed float matrices take theirs as the file's
// rows do.
func inputForm(w *Matrix) int {
	if w.packed != nil {
		switch w.Type {
		case typeQ8_0:
			return formPackedQ8
		case gguf.Q4_K:
			return formPackedQ4K
		case gguf.Q6_K:
			return formQ8K // the bsums are all it needs
		case gguf.Q5_0:
			return formPackedQ5_0
		case typeQ4_0:
			return formPackedQ4
		}
	}
	switch {
	case w.format != nil:
		return w.format.form
	case w.Type == typeQ8_0 || w.Type == typeQ4_0:
		return formQ8_0
	case w.Type == typeF16:
		return formF16
	}
	return formF32
}

// prepareInputs readies the n rows of x for products with w, spread over
// the threads.
func (m *Model) prepareInputs(w *Matrix, x []float32, n int) {
	m.mm.prep, m.mm.x, m.mm.ins = w, x, m.st.ins[:n]
	if inputForm(w) == formF32 {
		// F32 weights take the rows as they are: a pass over the threads
		// to point at them would cost more than pointing
		m.prepareRange(0, n)
		return
	}
	m.pool.Run(n, m.mmPrepare)
}

// prepareRange prepares inputs [lo, hi) of the product being set up.
func (p *pass) prepareRange(lo, hi int) {
	w, cols := p.mm.prep, p.mm.prep.Cols
	for b := lo; b < hi; b++ {
		in, x := &p.mm.ins[b], p.mm.x[b*cols:(b+1)*cols]
		in.prepare(x, inputForm(w), p.st.half[b*cols:(b+1)*cols])
	}
}

// Attention runs layer's attention for one query at position
// len(keys)-1, over the keys and values given for positions 0 to it (one
// row of KVDim values a position, the keys after RoPE), as Step runs it:
// the rows stored in the model's KV cache type (SetKVType), the query and
// softmax weights rounded as Step rounds them over that cache. It
// returns the heads' outputs, QDim values, so that attention can be held
// to another engine's on that engine's own inputs, as Product holds the
// products.
func (m *Model) Attention(layer int, q []float32, keys, values [][]float32) ([]float32, error) {
	n, kvDim := len(keys), m.KVDim()
	switch {
	case layer < 0 || layer >= m.Layers:
		return nil, fmt.Errorf("layer %d: the model has %d", layer, m.Layers)
	case len(q) != m.QDim():
		return nil, fmt.Errorf("a query of %d values: want %d", len(q), m.QDim())
	case n == 0 || n != len(values) || n > m.Context:
		return nil, fmt.Errorf("%d key rows and %d value rows: want the same number, 1 to %d", n, len(values), m.Context)
	}
	s := m.NewSequence(n)
	defer s.Release()
	for t := range keys {
		if len(keys[t]) != kvDim || len(values[t]) != kvDim {
			return nil, fmt.Errorf("position %d: %d keys and %d values, want %d", t, len(keys[t]), len(values[t]), kvDim)
		}
		s.store(layer, s.extend(layer, kvDim), keys[t], values[t])
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.grow(m.Config, 1, 1)
	m.st.pos[0] = n - 1
	entries := []Entry{{Seq: s}}
	out := make([]float32, m.QDim())
	m.attn.groups = min(max(1, 4*m.pool.Threads()), m.Heads)
	m.attn.entries, m.attn.layer, m.attn.q, m.attn.out = entries, layer, slices.Clone(q), out
	m.pool.Run(m.attn.groups, m.attnRows)
	return out, nil
}
