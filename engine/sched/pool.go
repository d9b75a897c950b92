package sched

import "slices"

// Poolings, as llama.cpp's --pooling names them: the mean of the prompt's
// tokens' hidden states, the last token's, or the first's (CLS).
const (
	PoolMean = "mean"
	PoolLast = "last"
	PoolCLS  = "cls"
)

func validPooling(p string) bool { return p == PoolMean || p == PoolLast || p == PoolCLS }

// hiddenRow is one token's hidden state a step computes for an embedding:
// its job, its position in the prompt, its entry in the step, and where
// the step writes it.
type hiddenRow struct {
	job   *job
	pos   int
	entry int
	row   []float32
}

// readsHidden says whether j's pooling reads the hidden state of its
// prompt token at pos (mean reads all, last and cls one).
func readsHidden(j *job, pos int) bool {
	switch j.req.Pooling {
	case PoolLast:
		return pos == len(j.req.Prompt)-1
	case PoolCLS:
		return pos == 0
	}
	return true
}

// placeHidden gives each hidden state the step asked for its row, in a
// buffer the batch keeps from step to step.
func (b *batch) placeHidden(dim int) {
	if need := len(b.hidden) * dim; need > len(b.hiddenBuf) {
		b.hiddenBuf = make([]float32, need)
	}
	for i := range b.hidden {
		h := &b.hidden[i]
		h.row = b.hiddenBuf[i*dim : (i+1)*dim]
		b.entries[h.entry].Hidden = h.row
	}
}

// pool adds the step's hidden states to their embeddings, and ends each
// embedding whose prompt has all been run.
func (b *batch) pool() {
	for _, h := range b.hidden {
		j := h.job
		if j.events == nil {
			continue
		}
		if j.pooled == nil {
			j.pooled = make([]float32, len(h.row))
		}
		switch j.req.Pooling {
		case PoolMean:
			for i, v := range h.row {
				j.pooled[i] += v
			}
		default: // the one row it asked for
			copy(j.pooled, h.row)
		}
	}
	for _, j := range b.running {
		if j.req.Pooling == "" || j.events == nil || j.fed < len(j.req.Prompt) {
			continue
		}
		if j.req.Pooling == PoolMean {
			for i := range j.pooled {
				j.pooled[i] /= float32(len(j.req.Prompt))
			}
		}
		j.embedded(slices.Clip(j.pooled))
	}
}

// embedded ends an embedding with its pooled state.
func (j *job) embedded(v []float32) {
	j.events <- Event{Done: true, Reason: "stop", Embedding: v}
	close(j.events)
	j.events = nil
	j.seq.Release()
	j.seq = nil
}
