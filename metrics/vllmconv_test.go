package metrics

import (
	"testing"
)

// TestVLLMEmptyListsAreZero: vLLM reports np.mean(tpots or 0): requests
// of one token each have no TPOT and no gap between events, and it prints
// 0 for both, where tpsbench's own convention leaves them absent.
func TestVLLMEmptyListsAreZero(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	ss.Add(rec(0, []int64{40}, []int{1}))
	ss.Add(rec(0, []int64{60}, []int{1}))
	s := ss.Summaries()[0]
	for name, d := range map[string]Dist{"TPOT": s.TPOT, "ITL": s.ITL} {
		if d.Count != 1 || d.Mean != 0 || d.Max != 0 || d.P99 != 0 {
			t.Errorf("%s %+v, want vLLM's 0 (the one value of `x or 0`)", name, d)
		}
	}
	own := NewSteps(Targets{})
	own.Add(rec(0, []int64{40}, []int{1}))
	if s := own.Summaries()[0]; s.TPOT.Count != 0 || s.ITL.Count != 0 {
		t.Errorf("tpsbench's convention: TPOT %+v, ITL %+v, want absent", s.TPOT, s.ITL)
	}
}

// TestVLLMClientLagExact: under vLLM's convention every distribution is
// numpy's over the exact samples, the client's lag too: lags of 10 and 20
// ms have a median of 15 (linear interpolation), not a histogram bucket's
// value.
func TestVLLMClientLagExact(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	for _, lag := range []int64{10, 20} {
		r := rec(100, []int64{40}, []int{1})
		r.Scheduled = r.Sent - lag*ms
		ss.Add(r)
	}
	near(t, "lag p50", ss.Summaries()[0].ClientLag.P50, 15)
}
