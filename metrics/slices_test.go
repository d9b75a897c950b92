package metrics

import (
	"testing"
	"time"
)

// TestSlices: slices of 1 s since the run's start hold the requests sent
// in them, with every figure of those, worked by hand. A request sent at
// 0.2 s with tokens at 0.3 and 1.2 s; one sent at 1.5 s with tokens at
// 1.6 and 1.7 s. Slice 0: the first, TTFT 100 ms, both its tokens (the
// second arrived in slice 1), an ITL of 900 ms, 2 tokens over its 1 s:
// TPS 2. Slice 1: the second, TTFT 100 ms, an ITL of 100 ms, 2 tokens
// over 0.2 s: TPS 10. No slice 2, though no request ended past 1.7 s.
func TestSlices(t *testing.T) {
	ss := NewSteps(Targets{}).WithSlices(time.Second)
	ss.Add(rec(200, []int64{100, 1000}, []int{1, 1}))
	ss.Add(rec(1500, []int64{100, 200}, []int{1, 1}))
	got := ss.Summaries()[0].Slices
	if len(got) != 2 {
		t.Fatalf("slices %+v", got)
	}
	s0, s1 := got[0], got[1]
	if s0.StartS != 0 || s0.Requests != 1 || s0.Completed != 1 || s0.Tokens != 2 || s0.TTFT.Count != 1 || s0.ITL.Count != 1 {
		t.Errorf("slice 0: %+v", s0)
	}
	near(t, "slice 0 TTFT", s0.TTFT.Mean, 100)
	near(t, "slice 0 ITL", s0.ITL.Max, 900)
	near(t, "slice 0 TPS", s0.TPS, 2)
	if s1.StartS != 1 || s1.Requests != 1 || s1.Tokens != 2 || s1.ITL.Count != 1 {
		t.Errorf("slice 1: %+v", s1)
	}
	near(t, "slice 1 ITL", s1.ITL.Max, 100)
	near(t, "slice 1 TPS", s1.TPS, 10)
	plain := NewSteps(Targets{})
	plain.Add(rec(0, []int64{10}, []int{1}))
	if plain.Summaries()[0].Slices != nil {
		t.Error("slices not asked for, given")
	}
}
