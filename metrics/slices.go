package metrics

import (
	"sort"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// Slice is one time slice of a step (AIPerf's --slice-duration): how the
// figures moved over the run, beside the rolling TPS chart.
type Slice struct {
	StartS    float64 `json:"start_s"`   // after the step's first send
	Requests  int     `json:"requests"`  // sent in the slice
	Completed int     `json:"completed"` // of those
	// TPS is the output tokens that arrived in the slice over its length
	// (a step's first and last slices may be partly empty).
	TPS  float64 `json:"tps"`
	TTFT Dist    `json:"ttft_ms"` // of the requests sent in the slice
	ITL  Dist    `json:"itl_ms"`  // of the tokens that arrived in it
}

// maxSlices bounds the slices a step keeps; later ones are not kept.
const maxSlices = 10000

// sliceAcc gathers a step's slices, by time since the run's start (the
// records' t0: slices line up across a run's steps, whatever order the
// records come in).
type sliceAcc struct {
	dur    int64 // ns; 0: no slices
	slices map[int64]*sliceBin
}

type sliceBin struct {
	requests, completed int
	tokens              int64
	ttft, itl           *histogram
}

func (a *sliceAcc) bin(at int64) *sliceBin {
	if at < 0 {
		return nil // a stamp before the run's clock began: no slice
	}
	k := at / a.dur
	b := a.slices[k]
	if b == nil {
		if len(a.slices) >= maxSlices {
			return nil
		}
		b = &sliceBin{ttft: newLatency(), itl: newLatency()}
		a.slices[k] = b
	}
	return b
}

// add counts a measured record in the slices its send and its tokens
// fall in.
func (a *sliceAcc) add(r *record.Record) {
	if a.dur <= 0 {
		return
	}
	sent := r.Sent
	b := a.bin(sent)
	if b == nil {
		return
	}
	b.requests++
	if !r.OK() {
		return
	}
	b.completed++
	if r.OutputTokens > 0 && r.First >= r.Sent {
		b.ttft.add(float64(r.TTFT()))
	}
	for _, c := range r.Chunks {
		if tb := a.bin(sent + c.At); tb != nil {
			tb.tokens += int64(c.Tokens)
		}
	}
	r.ITLsAt(func(at int64, d time.Duration, n int) {
		if tb := a.bin(sent + at); tb != nil {
			tb.itl.addN(float64(d), int64(n))
		}
	})
}

// summary is the slices in time order.
func (a *sliceAcc) summary() []Slice {
	if a.dur <= 0 || len(a.slices) == 0 {
		return nil
	}
	keys := make([]int64, 0, len(a.slices))
	for k := range a.slices {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	out := make([]Slice, 0, len(keys))
	for _, k := range keys {
		b := a.slices[k]
		out = append(out, Slice{StartS: float64(k*a.dur) / 1e9, Requests: b.requests, Completed: b.completed,
			TPS: float64(b.tokens) / time.Duration(a.dur).Seconds(), TTFT: b.ttft.summary(1e6), ITL: b.itl.summary(1e6)})
	}
	return out
}

// WithSlices makes every step also report its figures slice by slice, of
// d each (AIPerf's --slice-duration).
func (ss *Steps) WithSlices(d time.Duration) *Steps {
	ss.slice = d
	return ss
}
