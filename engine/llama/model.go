// Package llama is a llama-architecture transformer, and the variations of
// its block other families use (arch.go: qwen2's biases, qwen3's per-head
// norms, phi3's fused tensors, gemma's post-norms, GELU and sliding
// windows, Llama 3.1's RoPE frequencies): weights read in place from a
// GGUF file (F32, F16, BF16, Q8_0, Q4_0 and the other formats
// llama-quantize writes, K-quants included), a forward pass with a KV
// cache per sequence, and sampling. Its matrix-vector products run on a
// Pool of threads and allocate nothing per token.
//
// Start reading at Reference.Forward (reference.go): the whole pass in one
// function, in float64, as the tests hold the engine to it. Model.Step
// (forward.go) is the same pass over a batch of sequences, stage by stage:
// RMSNorm (norm.go); the q/k/v products (products.go hands each to its
// format's kernel: matrix.go, formats.go, and the kernels_* and quant
// files); RoPE and attention over each sequence's cache (attention.go);
// the output product, RMSNorm and the feed-forward's gate (feedforward.go);
// then the output head for the entries that want logits. Sampling is in
// sample.go.
package llama

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// Config is a model's shape.
type Config struct {
	Dim      int     // embedding length
	Hidden   int     // feed-forward length
	Layers   int     // block count
	Heads    int     // attention heads
	KVHeads  int     // key/value heads (grouped-query attention when fewer than Heads)
	Vocab    int     // vocabulary size
	Context  int     // context length
	Eps      float32 // RMSNorm epsilon
	RopeBase float32 // RoPE frequency base
	RopeDim  int     // dimensions rotated per head
	// RopeNeox turns the pairs (i, i+RopeDim/2) of a head (qwen2), not
	// (2i, 2i+1)
	RopeNeox bool
	// RopeScale multiplies positions (linear RoPE scaling); RopeFreqs,
	// when set, divides pair i's frequency (rope_freqs.weight, or Phi-3's
	// rope_factors_long or _short)
	RopeScale float32
	RopeFreqs []float32
	// RopeYaRN blends each pair's scaled angle with its unscaled one, by
	// YaRN's ramp between the correction dimensions RopeYaRNDims, and
	// scales its magnitude by 1 + 0.1 ln(1/RopeScale)
	RopeYaRN     bool
	RopeYaRNDims [2]float32
	// RopeAttnFactor multiplies every rotated pair (rope.scaling.attn_factor,
	// Phi-3's long-context correction; 0: 1)
	RopeAttnFactor float32
	// KeyLength is attention.key_length, a head size not tied to Dim/Heads
	// (0: Dim/Heads)
	KeyLength int
	// Gemma's variations (arch.go, readGemma)
	EmbedScale   float32 // embeddings multiplied by it (0: not)
	GELU         bool    // GELU gates the feed-forward, not SiLU
	AttnScale    float32 // the scores' scale (0: 1/sqrt(HeadDim))
	AttnSoftcap  float32 // scores capped to ±this by tanh (0: not)
	FinalSoftcap float32 // logits likewise
	Window       int     // sliding window of the layers that slide (Slides); 0: none
	SWAPattern   int     // which layers slide
	RopeBaseSWA  float32 // the RoPE base of the layers that slide
}

// HeadDim is the size of one attention head: KeyLength where the file
// gives one (qwen3: 128 whatever the embedding), else Dim/Heads.
func (c Config) HeadDim() int {
	if c.KeyLength > 0 {
		return c.KeyLength
	}
	return c.Dim / c.Heads
}

// QDim is the size of all heads' queries (and of the attention's output).
func (c Config) QDim() int { return c.Heads * c.HeadDim() }

// KVDim is the size of one position's keys (or values).
func (c Config) KVDim() int { return c.KVHeads * c.HeadDim() }

type layer struct {
	attnNorm, ffnNorm []float32
	wq, wk, wv, wo    *Matrix
	bq, bk, bv        []float32 // biases, where the file has them (qwen2)
	qNorm, kNorm      []float32 // per-head RMSNorm of q and k (qwen3, gemma3)
	// RMSNorm of the attention's and the feed-forward's output before they
	// join the residual stream (gemma2, gemma3)
	attnPostNorm, ffnPostNorm []float32
	wGate, wUp, wDown         *Matrix
}

// Model is a loaded model. Its Forward calls are serialised: one sequence
// at a time uses the shared scratch buffers and all the pool's threads.
type Model struct {
	Config
	tokEmb   *Matrix
	layers   []layer
	outNorm  []float32
	output   *Matrix
	pool     *Pool
	weights  map[string]*Matrix // by tensor name, for Product
	kv       kvPool[float32]    // released sequences' caches (Sequence.Release)
	kvHalf16 kvPool[uint16]     // and those of an F16 cache
	// kvType is what the KV cache holds (SetKVType); sequenced, once a
	// sequence has been made
	kvType    gguf.TensorType
	sequenced atomic.Bool
	// ropePow of each rotated pair, for layers that do not slide and
	// for those that do
	ropePows [2][]float64

	mu sync.Mutex
	// pass is the state of the step being run (one at a time, under mu)
	pass
}

// pass is a step's working state: its scratch buffers, and the arguments
// of the jobs it hands the pool's threads (the products, attention, the
// norms, the feed-forward's gate, sampling). The jobs are its methods,
// made into funcs once (Load), so that running one allocates nothing.
type pass struct {
	c      Config
	kvHalf bool // the KV cache holds F16 values (Model.SetKVType)
	st     scratch
	mm     struct {
		jobs  [3]product // the products of one pass: q, k and v at most
		njobs int
		grain int // units a pool index stands for (productUnits)
		ins   []vecInput
		// the matrix the inputs are being prepared for, and the activations
		prep *Matrix
		x    []float32
	}
	attn attention
	// the feed-forward's gate: gate[j] = SiLU(gate[j]) * up[j] (GELU for
	// gemma)
	glu struct {
		gate, up []float32
		act      func(gate, up []float32)
	}
	// the residual sum and norm (addNorm)
	norm struct {
		out, x, add, w []float32
	}
	// the sampling (SampleAll)
	sampling struct {
		samplers []*Sampler
		logits   [][]float32
		out      []int
	}
	// the layer's queries, keys and values after the products
	// (placeEntries)
	place struct {
		entries []Entry
		layer   int
		ly      *layer
		q, k, v []float32
	}
	mmUnits, mmPrepare, attnRows, gluRange, normRange, sampleRange, placeRange func(lo, hi int)
}

// scratch holds the buffers of a forward pass. They are sized for the
// largest batch seen so far, so steady-state steps allocate nothing.
type scratch struct {
	batch                        int // entries the buffers hold
	x, xb, xb2, q, k, v, hb, hb2 []float32
	att                          []float32 // attention's output, QDim an entry
	logits, outIn                []float32
	half                         []float32
	ins                          []vecInput
	pos                          []int
	kvAt                         []int     // where each entry's keys and values go in its cache
	rope                         []float32 // each entry's rotation (ropeAngles)
	ropeSWA                      []float32 // likewise for the layers that slide, where their base differs
	outRows                      [][]float32
}

// grow makes room for a batch of n entries, of which nl want logits.
func (st *scratch) grow(c Config, n, nl int) {
	if n > st.batch {
		kv := c.KVDim()
		st.batch = n
		st.x, st.xb, st.xb2 = make([]float32, n*c.Dim), make([]float32, n*c.Dim), make([]float32, n*c.Dim)
		st.q, st.k, st.v = make([]float32, n*c.QDim()), make([]float32, n*kv), make([]float32, n*kv)
		st.att = make([]float32, n*c.QDim())
		st.hb, st.hb2 = make([]float32, n*c.Hidden), make([]float32, n*c.Hidden)
		st.half = make([]float32, n*max(c.Dim, c.Hidden, c.QDim()))
		st.ins = make([]vecInput, n)
		st.pos, st.kvAt = make([]int, n), make([]int, n)
		st.rope, st.ropeSWA = make([]float32, n*c.RopeDim), make([]float32, n*c.RopeDim)
		st.outRows = make([][]float32, n)
		st.outIn = make([]float32, n*c.Dim)
	}
	if len(st.logits) < nl*c.Vocab {
		st.logits = make([]float32, nl*c.Vocab)
	}
}

func key(arch, k string) string { return arch + "." + k }

// ConfigFromGGUF reads a model's shape from llama.* metadata.
func ConfigFromGGUF(f *gguf.File) (Config, error) {
	arch, err := f.String("general.architecture")
	if err != nil {
		return Config{}, err
	}
	a, ok := architectures[arch]
	if !ok {
		return Config{}, fmt.Errorf("architecture %q is not supported (%s are)", arch, architectureNames())
	}
	c := Config{RopeNeox: a.neox}
	for k, dst := range map[string]*int{"embedding_length": &c.Dim, "feed_forward_length": &c.Hidden, "block_count": &c.Layers,
		"attention.head_count": &c.Heads, "context_length": &c.Context} {
		v, err := f.Uint(key(arch, k))
		if err != nil {
			return c, err
		}
		if v == 0 || v > 1<<24 {
			return c, fmt.Errorf("%s = %d is out of range", key(arch, k), v)
		}
		*dst = int(v)
	}
	// optional sizes: bounded as the required ones, before int conversion
	// (a uint64 of 2^63 or more would turn negative)
	optional := func(k string, def, lo int) (int, error) {
		v, err := f.Uint(key(arch, k))
		if err != nil {
			return def, nil
		}
		if v < uint64(lo) || v > 1<<24 {
			return 0, fmt.Errorf("%s = %d is out of range", key(arch, k), v)
		}
		return int(v), nil
	}
	if c.KVHeads, err = optional("attention.head_count_kv", c.Heads, 1); err != nil {
		return c, err
	}
	if c.KeyLength, err = optional("attention.key_length", 0, 0); err != nil {
		return c, err
	}
	if v, err := optional("attention.value_length", c.KeyLength, 0); err != nil || v != c.KeyLength {
		return c, fmt.Errorf("%s differs from the key length %d: not supported", key(arch, "attention.value_length"), c.KeyLength)
	}
	if c.KeyLength == c.Dim/max(c.Heads, 1) && c.Dim%max(c.Heads, 1) == 0 {
		c.KeyLength = 0 // the usual head size, said explicitly
	}
	eps, err := f.Float(key(arch, "attention.layer_norm_rms_epsilon"))
	if err != nil {
		return c, err
	}
	c.Eps = float32(eps)
	c.RopeBase = 10000
	if v, err := f.Float(key(arch, "rope.freq_base")); err == nil {
		c.RopeBase = float32(v)
	}
	if c.KeyLength == 0 && c.Dim%c.Heads != 0 || c.KVHeads == 0 || c.Heads%c.KVHeads != 0 || c.QDim() > 1<<24 {
		return c, fmt.Errorf("%d heads and %d key/value heads do not divide an embedding of %d", c.Heads, c.KVHeads, c.Dim)
	}
	if c.RopeDim, err = optional("rope.dimension_count", c.HeadDim(), 0); err != nil {
		return c, err
	}
	if c.RopeDim > c.HeadDim() || c.RopeDim%2 != 0 {
		return c, fmt.Errorf("rope dimension %d does not fit a head of %d", c.RopeDim, c.HeadDim())
	}
	if err := readRopeScaling(f, arch, &c); err != nil {
		return c, err
	}
	if err := readRopeFreqs(f, arch, &c); err != nil {
		return c, err
	}
	if a.gemma > 0 {
		if err := readGemma(f, arch, a.gemma, &c); err != nil {
			return c, err
		}
	}
	if t := f.Tensor("token_embd.weight"); t != nil && len(t.Dims) == 2 {
		c.Vocab = int(t.Dims[1])
	}
	return c, nil
}

// Load builds a model over a GGUF file's tensors (not copied: keep the
// file open while the model is in use) running on threads threads.
func Load(f *gguf.File, threads int) (*Model, error) {
	if kernelsEnvErr != nil {
		return nil, kernelsEnvErr
	}
	c, err := ConfigFromGGUF(f)
	if err != nil {
		return nil, err
	}
	m := &Model{Config: c, weights: map[string]*Matrix{}, ropePows: [2][]float64{c.ropePows(false), c.ropePows(true)}}
	ld := &loader{f: f, m: m, views: map[string]*gguf.Tensor{}}
	if c.Vocab == 0 {
		return nil, fmt.Errorf("tensor token_embd.weight is missing or not 2-D")
	}
	if m.tokEmb, err = ld.matrix("token_embd.weight", c.Dim, c.Vocab); err != nil {
		return nil, err
	}
	m.layers = make([]layer, c.Layers)
	for i := range m.layers {
		if err := ld.layer(i); err != nil {
			return nil, err
		}
	}
	if m.outNorm, err = ld.vector("output_norm.weight", c.Dim); err != nil {
		return nil, err
	}
	if f.Tensor("output.weight") != nil {
		if m.output, err = ld.matrix("output.weight", c.Dim, c.Vocab); err != nil {
			return nil, err
		}
	} else {
		m.output = m.tokEmb // tied embeddings
	}
	m.st.grow(c, 1, 1)
	m.pool = NewPool(threads)
	m.pass.init(c, m.pool.Threads())
	return m, nil
}

// loader takes a model's weights from a GGUF file, checking each shape.
type loader struct {
	f *gguf.File
	m *Model
	// views of fused tensors (phi3's attn_qkv and gate-and-up ffn_up), by
	// the names of the separate ones they stand for
	views map[string]*gguf.Tensor
}

// matrix is the 2-D weight name, of rows rows of cols values.
func (ld *loader) matrix(name string, cols, rows int) (*Matrix, error) {
	t := ld.views[name]
	if t == nil {
		t = ld.f.Tensor(name)
	}
	if t == nil {
		return nil, fmt.Errorf("tensor %s is missing", name)
	}
	if len(t.Dims) != 2 || int(t.Dims[0]) != cols || int(t.Dims[1]) != rows {
		return nil, fmt.Errorf("tensor %s has shape %v, want [%d %d]", name, t.Dims, cols, rows)
	}
	w, err := newMatrix(t)
	ld.m.weights[name] = w
	return w, err
}

// vector is the 1-D weight name, of n values, as F32.
func (ld *loader) vector(name string, n int) ([]float32, error) {
	t := ld.f.Tensor(name)
	if t == nil {
		return nil, fmt.Errorf("tensor %s is missing", name)
	}
	if len(t.Dims) != 1 || int(t.Dims[0]) != n {
		return nil, fmt.Errorf("tensor %s has shape %v, want [%d]", name, t.Dims, n)
	}
	mm, err := newMatrix(t)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	dequantRow(out, mm, 0)
	return out, nil
}

// layer takes block i's weights: its products, its norms, and the biases
// and extra norms of the architectures that have them.
func (ld *loader) layer(i int) error {
	c, l := ld.m.Config, &ld.m.layers[i]
	kv := c.KVDim()
	p := fmt.Sprintf("blk.%d.", i)
	if err := splitFused(ld.f, p, c, ld.views); err != nil {
		return err
	}
	var err error
	for _, s := range []struct {
		name       string
		dst        **Matrix
		cols, rows int
	}{
		{"attn_q.weight", &l.wq, c.Dim, c.QDim()}, {"attn_k.weight", &l.wk, c.Dim, kv}, {"attn_v.weight", &l.wv, c.Dim, kv},
		{"attn_output.weight", &l.wo, c.QDim(), c.Dim}, {"ffn_gate.weight", &l.wGate, c.Dim, c.Hidden},
		{"ffn_up.weight", &l.wUp, c.Dim, c.Hidden}, {"ffn_down.weight", &l.wDown, c.Hidden, c.Dim},
	} {
		if *s.dst, err = ld.matrix(p+s.name, s.cols, s.rows); err != nil {
			return err
		}
	}
	if l.attnNorm, err = ld.vector(p+"attn_norm.weight", c.Dim); err != nil {
		return err
	}
	for _, b := range []struct {
		name string
		dst  *[]float32
		n    int
	}{{"attn_q.bias", &l.bq, c.QDim()}, {"attn_k.bias", &l.bk, kv}, {"attn_v.bias", &l.bv, kv},
		{"attn_q_norm.weight", &l.qNorm, c.HeadDim()}, {"attn_k_norm.weight", &l.kNorm, c.HeadDim()},
		{"post_attention_norm.weight", &l.attnPostNorm, c.Dim}, {"post_ffw_norm.weight", &l.ffnPostNorm, c.Dim}} {
		if ld.f.Tensor(p+b.name) == nil {
			continue
		}
		if *b.dst, err = ld.vector(p+b.name, b.n); err != nil {
			return err
		}
	}
	l.ffnNorm, err = ld.vector(p+"ffn_norm.weight", c.Dim)
	return err
}

// init makes the pass's jobs and the attention's per-thread scratch.
func (p *pass) init(c Config, threads int) {
	p.c = c
	p.mmUnits, p.mmPrepare, p.attnRows = p.productUnits, p.prepareRange, p.attend
	p.normRange, p.sampleRange, p.gluRange = p.normEntries, p.sampleEntries, p.gate
	p.placeRange = p.placeEntries
	p.attn.scratch = make([][]float32, threads)
	p.attn.busy = make([]atomic.Bool, threads)
	p.glu.act = siluMul
	if c.GELU {
		p.glu.act = geluMul
	}
}

// Close stops the model's threads.
func (m *Model) Close() { m.pool.Close() }

// Threads is the number of threads products run on.
func (m *Model) Threads() int { return m.pool.Threads() }

// BytesPerToken is what one decoding step reads from the weights: every
// matrix once (the embedding table contributes one row), in the form the
// products read it: packed for this CPU's kernels where it is (Q4_K
// repacked is 2.8% over the file's; FileBytesPerToken is the file's).
func (m *Model) BytesPerToken() int { return m.bytesPerToken((*Matrix).Bytes) }

// FileBytesPerToken is BytesPerToken counted in the file's own formats.
func (m *Model) FileBytesPerToken() int { return m.bytesPerToken((*Matrix).FileBytes) }

func (m *Model) bytesPerToken(size func(*Matrix) int) int {
	n := m.tokEmb.rowBytes + size(m.output) + 4*len(m.outNorm)
	for _, l := range m.layers {
		for _, w := range []*Matrix{l.wq, l.wk, l.wv, l.wo, l.wGate, l.wUp, l.wDown} {
			n += size(w)
		}
		n += 4 * len(l.vectors())
	}
	return n
}

// vectors are a layer's norm weights and biases, end to end.
func (l *layer) vectors() []float32 {
	var all []float32
	for _, v := range [][]float32{l.attnNorm, l.ffnNorm, l.bq, l.bk, l.bv, l.qNorm, l.kNorm, l.attnPostNorm, l.ffnPostNorm} {
		all = append(all, v...)
	}
	return all
}

// Params counts the model's parameters: every weight it computes with,
// biases, per-head and post norms and RoPE's frequency divisors included
// (Qwen2.5-0.5B: 494,032,768, as its makers count it).
func (m *Model) Params() int {
	n := m.tokEmb.Rows*m.tokEmb.Cols + len(m.outNorm) + len(m.RopeFreqs)
	if m.output != m.tokEmb {
		n += m.output.Rows * m.output.Cols
	}
	for _, l := range m.layers {
		for _, w := range []*Matrix{l.wq, l.wk, l.wv, l.wo, l.wGate, l.wUp, l.wDown} {
			n += w.Rows * w.Cols
		}
		n += len(l.vectors())
	}
	return n
}
