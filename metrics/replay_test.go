package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

func TestReplayFidelity(t *testing.T) {
	s := NewAccumulator(Targets{})
	traced := func(r *record.Record, offsetMS int64, lagMS int64, in, trIn, trOut, reused int) *record.Record {
		r.Scheduled = r.Sent - lagMS*ms
		r.PromptTokens = in
		r.Trace = &record.TraceRef{Offset: offsetMS * ms, InputTokens: trIn, OutputTokens: trOut, ReusedTokens: reused}
		return r
	}
	// starts 1000 ms (the first two) and 1003 ms (the third) before
	// their offsets: a spread of 3 ms
	s.Add(traced(rec(1000, []int64{10, 20}, []int{1, 1}), 0, 0, 50, 50, 2, 0))
	s.Add(traced(rec(1202, []int64{10, 20}, []int{1, 2}), 200, 2, 48, 50, 2, 32))
	s.Add(traced(rec(1508, []int64{10}, []int{1}), 500, 5, 0, 60, 1, 0))
	s.Add(rec(2000, []int64{10}, []int{1})) // not from a trace
	g := s.Summary().Replay
	if g == nil {
		t.Fatal("no replay figures")
	}
	if g.Requests != 3 || g.InputCounted != 2 || g.InputExact != 1 || g.Completed != 3 || g.OutputExact != 2 ||
		g.TraceInputTokens != 160 || g.ReusableTokens != 32 {
		t.Errorf("counts %+v", *g)
	}
	near(t, "input error", g.InputErrorMean, 1)
	near(t, "arrival lag max", g.ArrivalLag.Max, 5)
	near(t, "start spread", g.StartSpreadMS, 3)
	if NewAccumulator(Targets{}).Summary().Replay != nil {
		t.Error("replay figures without a trace")
	}
}
