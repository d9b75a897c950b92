package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// The figures at the edges their definitions draw: a zero, one of
// something, a count that must add.

// TestGoodputNeedsAPerRequestTargetAndAWindow: goodput is the requests
// meeting every per-request target over the window: none without such a
// target, none over a window of no length.
func TestGoodputNeedsAPerRequestTargetAndAWindow(t *testing.T) {
	s := NewAccumulator(Targets{List: []Target{{Name: TargetSystemTPS, Want: 1}}})
	s.Add(away(5000, 100, 200))
	if g := s.Summary().Goodput; g != nil {
		t.Errorf("goodput %+v with only a step target", g)
	}
	s = NewAccumulator(Targets{List: []Target{{Name: TargetTTFT, Want: 100}}})
	instant := away(5000, 0)
	s.Add(instant)
	if g := s.Summary().Goodput; g != nil {
		t.Errorf("goodput %+v over a window of 0 s", g)
	}
}

// TestDecodeTPSOfTheFastestTPOT: a TPOT of 1 ns is 1e9 tokens/s; one that
// rounds to 0 ns (1 ns over 2 gaps) has no decode rate, never +Inf.
func TestDecodeTPSOfTheFastestTPOT(t *testing.T) {
	for _, c := range []struct {
		span     int64 // ns from the first token to the last, over 2 gaps
		measured bool
	}{{2, true}, {1, false}} {
		r := away(5000, 100, 100, 100)
		r.Chunks[1].At, r.Chunks[2].At = r.Chunks[0].At+c.span/2, r.Chunks[0].At+c.span
		r.Last = r.Sent + r.Chunks[2].At
		r.Done = r.Last
		s := NewAccumulator(Targets{List: []Target{{Name: TargetDecodeTPS, Want: 1}}})
		s.Add(r)
		v := s.Summary().Targets[0]
		if v.NotMeasurable == c.measured || (c.measured && v.Got != 1e9) {
			t.Errorf("a span of %d ns: %+v", c.span, v)
		}
	}
}

// TestCostNeedsAPrice: no price, no cost.
func TestCostNeedsAPrice(t *testing.T) {
	s := &Summary{DurationS: 10, OutputTokens: 100}
	if c := CostAt(s, 0); c != nil {
		t.Errorf("cost %+v at $0 an hour", c)
	}
}

// TestAudioAnsweredAtOnce: audio whose answer took no time has no
// processing time to set its seconds against: it is left out of the
// real-time factor and of the audio counted.
func TestAudioAnsweredAtOnce(t *testing.T) {
	s := NewAccumulator(Targets{})
	a := away(5000, 100, 200)
	a.AudioSeconds, a.Done = 10, a.Sent+2000*ms
	s.Add(a)
	b := away(5000, 0)
	b.AudioSeconds = 5
	s.Add(b)
	if sum := s.Summary(); sum.AudioSeconds != 10 || sum.RealTimeFactor != 5 {
		t.Errorf("audio %v s, factor %v", sum.AudioSeconds, sum.RealTimeFactor)
	}
}

// TestStepCountsOfOne: a request retried once is a retried one; a failed
// request's end is marked on the charts; the cached share is cached over
// prompt tokens.
func TestStepCountsOfOne(t *testing.T) {
	s := NewAccumulator(Targets{})
	r := away(5000, 100, 200)
	r.Retries, r.PromptTokens, r.CachedTokens = 1, 40, 10
	s.Add(r)
	failed := &record.Record{V: 1, T0: r.T0, Sent: 5100 * ms, Scheduled: 5100 * ms, Done: 5300 * ms}
	failed.Fail(record.KindTimeout, "slow")
	s.Add(failed)
	sum := s.Summary()
	if sum.Retried != 1 {
		t.Errorf("retried %d, want 1", sum.Retried)
	}
	if f := sum.Charts.Failures; len(f) != 1 || f[0] != failed.Abs(failed.Done) {
		t.Errorf("failure marks %v, want the one end at %d", f, failed.Abs(failed.Done))
	}
	if sum.CachedShare != 0.25 {
		t.Errorf("cached share %v, want 0.25", sum.CachedShare)
	}
}

// TestPartsTPOT: each model's TPOT is its requests' own.
func TestPartsTPOT(t *testing.T) {
	s := NewAccumulator(Targets{})
	a, b, one := away(5000, 100, 120), away(5000, 100, 140), away(5000, 100)
	a.Model, b.Model, one.Model = "a", "b", "b"
	for _, r := range []*record.Record{a, b, one} {
		s.Add(r)
	}
	m := s.Summary().Models
	if len(m) != 2 || m[0].TPOT.Count != 1 || m[0].TPOT.Mean != 20 || m[1].TPOT.Count != 1 || m[1].TPOT.Mean != 40 {
		t.Errorf("models %+v", m)
	}
}

// TestReplayExactPrompts: a prompt the server counted at the trace's
// length is exact; two exact of three.
func TestReplayExactPrompts(t *testing.T) {
	s := NewAccumulator(Targets{})
	for i, in := range []int{50, 50, 48} {
		r := away(5000+int64(i)*10, 100)
		r.PromptTokens = in
		r.Trace = &record.TraceRef{Offset: int64(i) * 10 * ms, InputTokens: 50, OutputTokens: 1}
		s.Add(r)
	}
	if g := s.Summary().Replay; g == nil || g.InputCounted != 3 || g.InputExact != 2 {
		t.Errorf("replay %+v, want 2 of 3 exact", g)
	}
}

// TestEnergyOfNoJoules: a meter that read 0 J gives no per-token figure,
// never tokens per joule of +Inf.
func TestEnergyOfNoJoules(t *testing.T) {
	if e := NewEnergy("rapl", 0, 200, ""); e.TokensPerJoule != 0 || e.JoulesPerToken != 0 {
		t.Errorf("%+v", e)
	}
}

// TestVLLMOneEvent: vLLM times a response of one event: its TTFT and
// latency are that event's.
func TestVLLMOneEvent(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	ss.Add(away(5000, 70))
	if sum := ss.Summaries()[0]; sum.TTFT.Count != 1 || sum.TTFT.Mean != 70 {
		t.Errorf("TTFT %+v", sum.TTFT)
	}
}

// TestGuideLLMCountsFoldedIterations: without usage GuideLLM counts an
// iteration a chunk, those folded past the record's bound included.
func TestGuideLLMCountsFoldedIterations(t *testing.T) {
	r := away(5000, 100, 200, 300)
	r.TokenSource, r.ChunksFolded = record.SourceChunks, 3
	if n := guidellmTokens(r); n != 6 {
		t.Errorf("%d iterations, want 6", n)
	}
}

// TestWeightedDistribution: GuideLLM's percentile is the first value whose
// cumulative weight reaches it: values 1, 2 and 3 of weights 50, 47 and
// 3 have p50 1, p90 and p95 2, p99 3, mean 1.53; one value is its own
// distribution.
func TestWeightedDistribution(t *testing.T) {
	d := weightedDist([]weighted{{3, 3}, {1, 50}, {2, 47}}, 100)
	if d.P50 != 1 || d.P90 != 2 || d.P95 != 2 || d.P99 != 3 || d.P999 != 3 || d.Min != 1 || d.Max != 3 || d.Count != 100 {
		t.Errorf("%+v", d)
	}
	near(t, "mean", d.Mean, 1.53)
	if one := weightedDist([]weighted{{5, 2}}, 1); one.Mean != 5 || one.P50 != 5 || one.Count != 1 {
		t.Errorf("one value: %+v", one)
	}
}

// TestCDFsInTheirUnits: each CDF's points are the distribution's own
// percentiles, in the units the tables give them.
func TestCDFsInTheirUnits(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 100, 130, 150))
	s.Add(away(5100, 200, 260, 290))
	sum := s.Summary()
	for key, d := range map[string]Dist{"ttft_ms": sum.TTFT, "tpot_ms": sum.TPOT, "itl_ms": sum.ITL, "e2e_ms": sum.E2E, "request_tps": sum.RequestTPS, "ttst_ms": sum.TTST} {
		pts := sum.Charts.CDF[key]
		if len(pts) < 101 || pts[50].V != 0.5 || pts[50].X != d.P50 || pts[100].X != d.Max {
			t.Errorf("%s: CDF at 0.5 %+v, p50 %v", key, pts[50], d.P50)
		}
	}
}
