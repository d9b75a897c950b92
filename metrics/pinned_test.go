package metrics

import (
	"math"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// away is a record sent at 5 s after a t0 far from zero, its chunks at
// the given ms after the send, one token each (usage): figures worked by
// hand from docs/metrics.md, where a record sent at 0 let a sign slip.
func away(sentMS int64, at ...int64) *record.Record {
	r := &record.Record{V: 1, Stream: true, T0: 1_700_000_000e9, Sent: sentMS * ms, Scheduled: sentMS * ms, TokenSource: record.SourceUsage}
	for _, a := range at {
		r.Chunks = append(r.Chunks, record.Chunk{At: a * ms, Tokens: 1})
	}
	r.OutputTokens, r.UsageTokens = len(at), len(at)
	r.First, r.Last = r.Sent+at[0]*ms, r.Sent+at[len(at)-1]*ms
	r.Done = r.Last
	return r
}

// TestFiguresAwayFromZero: requests sent at 5 s and 5.5 s. The first: 4
// tokens at 100, 200, 300, 400 ms after its send: request TPS 4 / 0.4 s =
// 10, TPOT 100 ms. The second: 2 tokens at 50 and 250 ms: 8 tokens/s,
// TPOT 200 ms. The step's window runs from the first send (5 s) to the last
// token (5.75 s): 6 tokens over 0.75 s.
func TestFiguresAwayFromZero(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 100, 200, 300, 400))
	s.Add(away(5500, 50, 250))
	sum := s.Summary()
	near(t, "request TPS min", sum.RequestTPS.Min, 8)
	near(t, "request TPS max", sum.RequestTPS.Max, 10)
	near(t, "TPOT min", sum.TPOT.Min, 100)
	near(t, "TPOT max", sum.TPOT.Max, 200)
	near(t, "duration", sum.DurationS, 0.75)
	near(t, "system TPS", sum.SystemTPS, 6/0.75)
	near(t, "TTFT min", sum.TTFT.Min, 50)

	g := NewSteps(Targets{}).WithConvention(ConventionGuideLLM)
	g.Add(away(5000, 100, 200, 300, 400))
	gs := g.Summaries()[0]
	near(t, "GuideLLM TTFT", gs.TTFT.Mean, 100)
	near(t, "GuideLLM TPOT (last - sent) / n", gs.TPOT.Mean, 400.0/4)

	v := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	v.Add(away(5000, 100, 200, 300, 400))
	// vLLM's duration runs from the schedule's start (5 s) to the end
	// (5.4 s): 4 tokens over 0.4 s
	near(t, "vLLM system TPS", v.Summaries()[0].SystemTPS, 10)
}

// TestVerdictFields: each field of a verdict, worked by hand. Request TPS
// of 10 and 8 (share 0.5 must meet 9: met by one of two, 0.5: passes, the
// value quoted the share's percentile of the slow end); system TPS 8 against
// 10: fails with the value quoted; a TPOT target on a step whose requests
// had none: not measurable, failing.
func TestVerdictFields(t *testing.T) {
	ts := Targets{Share: 0.5, List: []Target{{Name: TargetRequestTPS, Want: 9}, {Name: TargetSystemTPS, Want: 10}, {Name: TargetTPOT, Want: 50}}}
	s := NewAccumulator(ts)
	s.Add(away(5000, 100, 200, 300, 400))
	s.Add(away(5500, 50, 250))
	got := s.Summary().Targets
	if len(got) != 3 {
		t.Fatalf("verdicts %+v", got)
	}
	req, sys, tpot := got[0], got[1], got[2]
	if !req.Pass || math.Abs(req.Met-0.5) > 1e-12 || req.Need != 0.5 || math.Abs(req.Got-8) > 0.01 {
		t.Errorf("request TPS verdict %+v: want met 0.5 of 0.5, got 8 (the slower half's)", req)
	}
	if sys.Pass || math.Abs(sys.Got-8) > 1e-9 || sys.NotMeasurable {
		t.Errorf("system TPS verdict %+v: want 8 against 10, failing", sys)
	}
	if tpot.Pass || tpot.NotMeasurable {
		t.Errorf("TPOT verdict %+v: both requests have a TPOT (100 and 200 ms), so measurable; failing for the 200", tpot)
	}

	one := NewAccumulator(Targets{List: []Target{{Name: TargetTPOT, Want: 50}, {Name: TargetSystemTPS, Want: 1}}})
	one.Add(away(5000, 100)) // one token: no TPOT
	v := one.Summary().Targets
	if v[0].Pass || !v[0].NotMeasurable {
		t.Errorf("a TPOT target with no TPOT: %+v, want not measurable and failing", v[0])
	}
	if !v[1].Pass {
		t.Errorf("system TPS 1 token over its step against 1: %+v", v[1])
	}
	none := NewAccumulator(Targets{List: []Target{{Name: TargetSystemTPS, Want: 1}}})
	failed := &record.Record{V: 1, T0: 1_700_000_000e9, Sent: 5000 * ms, Done: 5100 * ms}
	failed.Fail(record.KindHTTPStatus, "HTTP 500")
	none.Add(failed)
	if v := none.Summary().Targets[0]; v.Pass || !v.NotMeasurable {
		t.Errorf("system TPS of a step whose requests all failed: %+v, want not measurable and failing", v)
	}
}

// TestRatePercentilesScaled: percentiles of request and decode TPS come
// out in tokens/s, the histogram's scale undone: 10 and 8 tokens/s give a
// p50 of one of them, not a thousandth or a thousandfold.
func TestRatePercentilesScaled(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 100, 200, 300, 400))
	s.Add(away(5500, 50, 250))
	sum := s.Summary()
	for name, v := range map[string]float64{"request TPS p50": sum.RequestTPS.P50, "decode TPS p50": sum.DecodeTPS.P50} {
		if !(math.Abs(v-8) < 0.01 || math.Abs(v-10) < 0.01 || math.Abs(v-5) < 0.01) {
			t.Errorf("%s = %v, want one of the requests' own", name, v)
		}
	}
}
