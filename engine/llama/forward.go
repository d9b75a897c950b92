package llama

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// placeEntries finishes entries [lo, hi)'s queries, keys and values of
// the layer being run (biases, head norms, rotation) and writes the keys
// and values to the places in their caches that step claimed: one entry
// after another on one thread, this was a tenth of a batch of 32's step
// on the default model while the other thread waited.
func (p *pass) placeEntries(lo, hi int) {
	a, c := &p.place, p.c
	qDim, kvDim, hd := c.QDim(), c.KVDim(), c.HeadDim()
	for i := lo; i < hi; i++ {
		q, k, v := a.q[i*qDim:(i+1)*qDim], a.k[i*kvDim:(i+1)*kvDim], a.v[i*kvDim:(i+1)*kvDim]
		addBias(q, a.ly.bq)
		addBias(k, a.ly.bk)
		addBias(v, a.ly.bv)
		headNorm(q, a.ly.qNorm, c.Eps)
		headNorm(k, a.ly.kNorm, c.Eps)
		cs := p.st.rope[i*c.RopeDim : (i+1)*c.RopeDim]
		if c.Slides(a.layer) {
			cs = p.st.ropeSWA[i*c.RopeDim : (i+1)*c.RopeDim]
		}
		rope(q, c.Heads, hd, cs, c.RopeNeox)
		rope(k, c.KVHeads, hd, cs, c.RopeNeox)
		a.entries[i].Seq.store(a.layer, p.st.kvAt[i], k, v)
	}
}

// Forward feeds one token at the sequence's next position and returns the
// logits for the token after it. The slice is the model's and is valid
// until the next Forward or Step on any sequence of the model.
func (s *Sequence) Forward(token int) ([]float32, error) {
	s.one[0] = Entry{Seq: s, Token: token, Logits: true}
	out, err := s.m.Step(s.one[:])
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Entry is one token of one sequence in a step.
type Entry struct {
	Seq    *Sequence
	Token  int
	Logits bool // compute the logits after this token
	// Hidden, when set (Dim values), receives the token's final hidden
	// state: the output norm's result, the output head's input, which is
	// what llama.cpp gives as a token's embedding (result_norm).
	Hidden []float32
}

// Step runs one forward pass over a batch: decoding tokens of several
// sequences, chunks of prompts, or both. Entries of one sequence must be
// consecutive; they take its next positions in order. Every weight matrix
// is read once for the whole batch. It returns the logits of the entries
// that asked for them, in order; they are valid until the next Step.
//
// A memory fault while reading the weights (their file truncated under the
// mapping) fails this step and every later one with an error.
func (m *Model) Step(entries []Entry) (rows [][]float32, err error) {
	if err := m.pool.Fault(); err != nil {
		return nil, err
	}
	prev := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(prev)
	defer func() {
		if r := recover(); r != nil {
			m.pool.noteFault(r) // panics again unless r is a memory fault
			rows, err = nil, m.pool.Fault()
		}
	}()
	rows, err = m.step(entries)
	if ferr := m.pool.Fault(); ferr != nil {
		return nil, ferr
	}
	return rows, err
}

// step runs one forward pass over entries, under the model's lock: the
// positions checked, the tokens embedded, every layer, then the output
// head for the entries that want logits.
func (m *Model) step(entries []Entry) ([][]float32, error) {
	n := len(entries)
	if n == 0 {
		return nil, errors.New("empty step")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	nl := 0
	for _, e := range entries {
		if e.Logits {
			nl++
		}
	}
	c := m.Config
	st := &m.st
	st.grow(c, n, nl)
	if err := m.positions(entries); err != nil {
		return nil, err
	}
	// Attention tasks: each entry's heads, split into groups enough to
	// keep every thread busy when the batch is small.
	m.attn.groups = min(max(1, (4*m.pool.Threads()+n-1)/n), c.Heads)
	x, xb2 := st.x[:n*c.Dim], st.xb2[:n*c.Dim]
	m.embed(entries, x)
	for l := range m.layers {
		m.layer(l, entries)
	}
	for j := range x {
		x[j] += xb2[j]
	}
	for i, e := range entries {
		e.Seq.pos++
		if len(e.Hidden) == c.Dim {
			rmsNorm(e.Hidden, x[i*c.Dim:(i+1)*c.Dim], m.outNorm, c.Eps)
		}
	}
	if nl == 0 {
		return nil, nil
	}
	return m.head(entries, nl), nil
}

// positions sets each entry's position and its RoPE angles, after checking
// every entry before anything changes.
func (m *Model) positions(entries []Entry) error {
	c, st := &m.Config, &m.st
	for i, e := range entries {
		if e.Token < 0 || e.Token >= m.Vocab {
			return fmt.Errorf("token %d is outside the vocabulary of %d", e.Token, m.Vocab)
		}
		if e.Seq == nil || e.Seq.m != m {
			return errors.New("entry of another model's sequence")
		}
		if e.Seq.released() {
			return errors.New("entry of a released sequence")
		}
		if e.Hidden != nil && len(e.Hidden) != c.Dim {
			return fmt.Errorf("a hidden state of %d values, the model's are %d", len(e.Hidden), c.Dim)
		}
		st.pos[i] = e.Seq.pos
		if i > 0 && entries[i-1].Seq == e.Seq {
			st.pos[i] = st.pos[i-1] + 1
		} else {
			for j := 0; j < i; j++ {
				if entries[j].Seq == e.Seq {
					return errors.New("entries of one sequence must be consecutive")
				}
			}
		}
		if st.pos[i] >= m.Context {
			return fmt.Errorf("the context of %d tokens is full", m.Context)
		}
	}
	for i := range entries {
		ropeAngles(st.rope[i*c.RopeDim:(i+1)*c.RopeDim], c, st.pos[i], false, m.ropePows[0])
		if c.Window > 0 {
			ropeAngles(st.ropeSWA[i*c.RopeDim:(i+1)*c.RopeDim], c, st.pos[i], true, m.ropePows[1])
		}
	}
	return nil
}

// embed puts each entry's token embedding into its row of x.
func (m *Model) embed(entries []Entry, x []float32) {
	dim := m.Config.Dim
	for i, e := range entries {
		row := x[i*dim : (i+1)*dim]
		dequantRow(row, m.tokEmb, e.Token)
		if m.Config.EmbedScale != 0 { // gemma
			for j := range row {
				row[j] *= m.Config.EmbedScale
			}
		}
	}
}

// layer runs layer l over the step's entries: attention, then the
// feed-forward network, its output left in xb2 for the next layer's norm
// to add to the stream.
func (m *Model) layer(l int, entries []Entry) {
	c, st, n := &m.Config, &m.st, len(entries)
	dim, kvDim, hidden, qDim := c.Dim, c.KVDim(), c.Hidden, c.QDim()
	x, xb, xb2 := st.x[:n*dim], st.xb[:n*dim], st.xb2[:n*dim]
	q, k, v, att := st.q[:n*qDim], st.k[:n*kvDim], st.v[:n*kvDim], st.att[:n*qDim]
	hb, hb2 := st.hb[:n*hidden], st.hb2[:n*hidden]
	ly := &m.layers[l]
	if l == 0 {
		m.addNorm(xb, x, nil, ly.attnNorm, n)
	} else {
		m.addNorm(xb, x, xb2, ly.attnNorm, n) // the last layer's output joins the stream
	}
	m.matMuls(xb, n, product{out: q, w: ly.wq}, product{out: k, w: ly.wk}, product{out: v, w: ly.wv})
	// each entry's cache position is claimed here, in order (a prompt's
	// entries share a sequence), and filled over the threads
	for i, e := range entries {
		st.kvAt[i] = e.Seq.extend(l, kvDim)
	}
	m.place.entries, m.place.layer, m.place.ly, m.place.q, m.place.k, m.place.v = entries, l, ly, q, k, v
	m.pool.Run(n, m.placeRange)
	m.attn.entries, m.attn.layer, m.attn.q, m.attn.out = entries, l, q, att
	m.pool.Run(n*m.attn.groups, m.attnRows)
	m.matMul(xb2, ly.wo, att, n)
	postNorm(xb2, ly.attnPostNorm, dim, c.Eps)
	m.addNorm(xb, x, xb2, ly.ffnNorm, n)
	m.matMuls(xb, n, product{out: hb, w: ly.wGate}, product{out: hb2, w: ly.wUp})
	m.glu.gate, m.glu.up = hb, hb2 // SiLU (GELU for gemma) of gate, times up, over the threads
	m.pool.Run((len(hb)+gluChunk-1)/gluChunk, m.gluRange)
	m.matMul(xb2, ly.wDown, hb, n)
	postNorm(xb2, ly.ffnPostNorm, dim, c.Eps)
}

// head is the logits of the nl entries that want them: only those go
// through the output head, the largest matrix of a small model.
func (m *Model) head(entries []Entry, nl int) [][]float32 {
	c, st := &m.Config, &m.st
	dim, x := c.Dim, st.x
	outIn := st.outIn[:nl*dim]
	j := 0
	for i, e := range entries {
		if e.Logits {
			rmsNorm(outIn[j*dim:(j+1)*dim], x[i*dim:(i+1)*dim], m.outNorm, c.Eps)
			j++
		}
	}
	logits := st.logits[:nl*m.Vocab]
	m.matMul(logits, m.output, outIn, nl)
	rows := st.outRows[:nl]
	for j := range rows {
		rows[j] = logits[j*m.Vocab : (j+1)*m.Vocab]
		if c.FinalSoftcap > 0 { // gemma2
			softcap(rows[j], c.FinalSoftcap)
		}
	}
	return rows
}

// addBias adds a projection's bias (none when b is nil).
func addBias(x, b []float32) {
	for i, v := range b {
		x[i] += v
	}
}
