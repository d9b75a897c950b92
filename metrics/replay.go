package metrics

import (
	"math"

	"github.com/tpsbench/tpsbench/record"
)

// Replay says how faithfully a step replayed a trace (docs/metrics.md,
// "Trace replay"), from what each record's trace reference asked.
type Replay struct {
	Requests int `json:"requests"` // measured requests replayed from a trace
	// ArrivalLag is how late each was sent after its time in the trace
	// (its client lag): the replay's arrival error.
	ArrivalLag Dist `json:"arrival_lag_ms"`
	// StartSpreadMS is how far apart the replay's starts were across its
	// records: 0 for one process; for merged shards, how far apart they
	// began.
	StartSpreadMS float64 `json:"start_spread_ms"`
	// Prompts the server counted, those of exactly the trace's length,
	// and their mean distance from it in tokens.
	InputCounted   int     `json:"input_counted"`
	InputExact     int     `json:"input_exact"`
	InputErrorMean float64 `json:"input_error_mean"`
	// Completed requests, and those that made exactly the trace's output.
	Completed   int `json:"completed"`
	OutputExact int `json:"output_exact"`
	// The trace's prompt tokens, and those in prefix blocks an earlier
	// request of it had (what a prefix cache could reuse).
	TraceInputTokens int64 `json:"trace_input_tokens"`
	ReusableTokens   int64 `json:"reusable_tokens"`
}

type replayAcc struct {
	r                  Replay
	lag                *histogram
	inputErr           float64
	startMin, startMax int64
}

func newReplayAcc() replayAcc { return replayAcc{lag: newLatency()} }

// add counts a measured record.
func (a *replayAcc) add(r *record.Record) {
	t := r.Trace
	if t == nil {
		return
	}
	a.r.Requests++
	a.lag.add(float64(r.ClientLag()))
	start := r.Abs(r.Scheduled) - t.Offset
	if a.r.Requests == 1 || start < a.startMin {
		a.startMin = start
	}
	if a.r.Requests == 1 || start > a.startMax {
		a.startMax = start
	}
	a.r.TraceInputTokens += int64(t.InputTokens)
	a.r.ReusableTokens += int64(t.ReusedTokens)
	if r.PromptTokens > 0 {
		a.r.InputCounted++
		d := r.PromptTokens - t.InputTokens
		if d == 0 {
			a.r.InputExact++
		}
		a.inputErr += math.Abs(float64(d))
	}
	if r.OK() {
		a.r.Completed++
		if r.OutputTokens == t.OutputTokens {
			a.r.OutputExact++
		}
	}
}

// summary is the step's Replay, or nil when it replayed no trace.
func (a *replayAcc) summary() *Replay {
	if a.r.Requests == 0 {
		return nil
	}
	out := a.r
	out.ArrivalLag = a.lag.summary(1e6)
	out.StartSpreadMS = float64(a.startMax-a.startMin) / 1e6
	if out.InputCounted > 0 {
		out.InputErrorMean = a.inputErr / float64(out.InputCounted)
	}
	return &out
}
