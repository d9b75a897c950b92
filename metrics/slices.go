package metrics

import (
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tpsbench/tpsbench/record"
)

// Slice is one time slice of a step (AIPerf's --slice-duration): how the
// figures moved over the run, beside the rolling TPS chart. A slice holds
// the requests sent in it, as AIPerf's do, and every figure of a slice is
// of those requests, whenever their tokens came: one rule, so a slice
// past the last send, which only tokens of earlier requests reached, is
// no slice.
type Slice struct {
	StartS    float64 `json:"start_s"`       // after the run's start
	Requests  int     `json:"requests"`      // sent in the slice
	Completed int     `json:"completed"`     // of those
	Tokens    int     `json:"output_tokens"` // theirs: a step's slices add up to its output
	// TPS is those requests' output tokens over their window, from the
	// first's send to the last's end, as a step's system TPS is.
	TPS  float64 `json:"tps"`
	TTFT Dist    `json:"ttft_ms"` // of those requests
	ITL  Dist    `json:"itl_ms"`  // of those requests' tokens
}

// maxSlices bounds the slices a step keeps; the requests of later ones
// are in none (Summary.SlicesLeftOut). Each slice holds two histograms
// of 37 KB (newSliceLatency): 10,000 slices of full ones were 5.4 GB, a
// --slice-duration of 100 ms over a 20-minute run. A variable: tests
// shorten it.
var maxSlices = 2000

// newSliceLatency holds a slice's durations in ns to 2 significant
// digits (1%), an eighth of newLatency's memory: a slice's percentiles
// show a trend over the run, the step's own give the 0.1% figures.
func newSliceLatency() *histogram {
	return &histogram{h: hdrhistogram.New(1, int64(3600e9), 2), scale: 1}
}

// sliceAcc gathers a step's slices, by time since the run's start (the
// records' t0: slices line up across a run's steps, whatever order the
// records come in).
type sliceAcc struct {
	dur     int64 // ns; 0: no slices
	slices  map[int64]*sliceBin
	leftOut int // requests sent in a slice past maxSlices
}

type sliceBin struct {
	requests, completed int
	tokens              int64
	first, last         int64 // the requests' first send and last end
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
			a.leftOut++
			return nil
		}
		b = &sliceBin{ttft: newSliceLatency(), itl: newSliceLatency()}
		a.slices[k] = b
	}
	return b
}

// add counts a measured record in the slice of its send.
func (a *sliceAcc) add(r *record.Record) {
	if a.dur <= 0 {
		return
	}
	b := a.bin(r.Sent)
	if b == nil {
		return
	}
	if b.requests == 0 || r.Sent < b.first {
		b.first = r.Sent
	}
	b.last = max(b.last, r.Done)
	b.requests++
	if !r.OK() {
		return
	}
	b.completed++
	if r.OutputTokens > 0 && r.First >= r.Sent {
		b.ttft.add(float64(r.TTFT()))
	}
	b.tokens += int64(r.OutputTokens)
	r.ITLs(func(d time.Duration, n int) { b.itl.addN(float64(d), int64(n)) })
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
		tps := 0.0
		if b.last > b.first {
			tps = float64(b.tokens) / (float64(b.last-b.first) / 1e9)
		}
		out = append(out, Slice{StartS: float64(k*a.dur) / 1e9, Requests: b.requests, Completed: b.completed, Tokens: int(b.tokens),
			TPS: tps, TTFT: b.ttft.summary(1e6), ITL: b.itl.summary(1e6)})
	}
	return out
}

// WithSlices makes every step also report its figures slice by slice, of
// d each (AIPerf's --slice-duration).
func (ss *Steps) WithSlices(d time.Duration) *Steps {
	ss.slice = d
	return ss
}
