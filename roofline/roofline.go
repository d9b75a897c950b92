package roofline

import "math"

// Case is one estimate's inputs.
type Case struct {
	Model         Model
	BytesPerParam float64 // weight format
	KVBytes       float64 // bytes per KV element (2 for an F16 cache)
	Hardware      Hardware
	Batch         int // sequences decoding together
	Context       int // tokens each sequence holds (its KV cache)
	// WeightBytes, when set, replaces Params x BytesPerParam (a GGUF file
	// knows exactly what a step reads).
	WeightBytes float64
}

// Estimate is the roofline of one case.
type Estimate struct {
	Batch         int
	WeightBytes   float64 // read once a step
	KVBytes       float64 // read a step, all sequences
	MemoryStepS   float64 // step time if memory-bound
	ComputeStepS  float64 // step time if compute-bound
	Binds         string  // "memory" or "compute"
	SystemTPS     float64 // tokens/s for the whole batch
	PerRequestTPS float64 // tokens/s each sequence sees
	// ResidentBytes must stay in memory: every weight (all experts, read a
	// step or not) and the batch's KV cache.
	ResidentBytes float64
}

// Fits reports whether the case's resident bytes fit in the hardware's
// memory; known is false when the hardware's memory is not known.
func (e Estimate) Fits(h Hardware) (fits, known bool) {
	if h.MemoryGB <= 0 {
		return false, false
	}
	return e.ResidentBytes <= h.MemoryGB*1e9, true
}

// kvBytesPerSeq is one sequence's KV cache at the case's context.
func (c Case) kvBytesPerSeq() float64 {
	m := c.Model
	return float64(c.Context) * float64(m.Layers) * 2 * float64(m.KVHeads*m.HeadDim) * c.KVBytes
}

// residentWeights is every weight's bytes, whatever a step reads.
func (c Case) residentWeights() float64 {
	if c.WeightBytes > 0 {
		return c.WeightBytes
	}
	return c.Model.Params * c.BytesPerParam
}

// MaxBatch is how many sequences of the case's context the hardware's
// memory holds beside the weights: an upper bound, as servers keep
// memory for activations too. bounded is false when memory does not bound
// the batch (no KV cache) or the hardware's memory is not known.
func (c Case) MaxBatch() (n int, bounded bool) {
	perSeq := c.kvBytesPerSeq()
	if c.Hardware.MemoryGB <= 0 || perSeq <= 0 {
		return 0, false
	}
	free := c.Hardware.MemoryGB*1e9 - c.residentWeights()
	if free <= 0 {
		return 0, true
	}
	return int(min(math.Floor(free/perSeq), math.MaxInt32)), true
}

// weightBytes a step reads at this batch: mixture-of-experts models touch
// more experts as the batch grows.
func (c Case) weightBytes() float64 {
	if c.WeightBytes > 0 {
		return c.WeightBytes
	}
	m := c.Model
	params := m.Params
	if m.Experts > 0 && m.ExpertsPerTok > 0 {
		shared := m.Params - m.ExpertParams
		// expected share of a layer's experts that at least one of the
		// batch's tokens routes to
		frac := 1 - math.Pow(1-float64(m.ExpertsPerTok)/float64(m.Experts), float64(c.Batch))
		params = shared + m.ExpertParams*frac
	}
	return params * c.BytesPerParam
}

// Run computes the estimate.
func (c Case) Run() Estimate {
	b := max(c.Batch, 1)
	m := c.Model
	active := m.Active
	if active == 0 {
		active = m.Params
	}
	e := Estimate{Batch: b, WeightBytes: c.weightBytes()}
	e.KVBytes = float64(b) * c.kvBytesPerSeq()
	e.ResidentBytes = c.residentWeights() + e.KVBytes
	e.MemoryStepS = (e.WeightBytes + e.KVBytes) / (c.Hardware.Bandwidth * 1e9)
	// 2 FLOPs a parameter a token, and attention: 2 x 2 x context x heads x head size a layer
	flops := float64(b) * (2*active + 4*float64(c.Context)*float64(m.Layers*m.Heads*m.HeadDim))
	e.ComputeStepS = flops / (c.Hardware.TFLOPS * 1e12)
	step := math.Max(e.MemoryStepS, e.ComputeStepS)
	e.Binds = "memory"
	if e.ComputeStepS > e.MemoryStepS {
		e.Binds = "compute"
	}
	e.SystemTPS = float64(b) / step
	e.PerRequestTPS = 1 / step
	return e
}
