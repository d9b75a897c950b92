package metrics

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// TestConventionWindowAndRates: under vLLM's convention a step says so
// and its duration runs from the schedule's start: requests due at 4.9 s
// and 5.5 s, sent at 5 s and 5.5 s (TestFiguresAwayFromZero's), their
// tokens ending at 5.75 s: 6 tokens over 0.85 s. Under ours, the window
// runs from the first send, 0.75 s: achieved concurrency is the requests'
// E2E (0.4 + 0.25 s) over it, 0.8667, and per-request TPS system TPS 8
// over that, 9.23.
func TestConventionWindowAndRates(t *testing.T) {
	a, b := away(5000, 100, 200, 300, 400), away(5500, 50, 250)
	a.Scheduled = 4900 * ms
	v := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	v.Add(a)
	v.Add(b)
	vs := v.Summaries()[0]
	if vs.Convention != ConventionVLLM {
		t.Errorf("convention %q", vs.Convention)
	}
	near(t, "vLLM duration", vs.DurationS, 0.85)
	own := NewAccumulator(Targets{})
	own.Add(away(5000, 100, 200, 300, 400))
	own.Add(away(5500, 50, 250))
	s := own.Summary()
	near(t, "achieved concurrency", s.AchievedConcurrency, 0.65/0.75)
	near(t, "per-request TPS", s.PerRequestTPS, 8/(0.65/0.75))
}

// TestSmallCorners2: a per-request target of a step that measured
// nothing has met nothing (not NaN); a video alone is a request with
// media, its upload timed; one reasoning token makes a reasoning request,
// and the answer's system TPS counts over a window under a second; an
// early stop by rate says its share; live counters of no tokens read 0;
// repeated runs of one TTFT each still give its p99.
func TestSmallCorners2(t *testing.T) {
	none := NewAccumulator(Targets{Share: 0.5, List: []Target{{Name: TargetTTFT, Want: 100}}})
	if v := none.Summary().Targets[0]; v.Met != 0 {
		t.Errorf("verdict of nothing measured: %+v", v)
	}
	video := away(5000, 100)
	video.Videos, video.Upload = 1, 2*ms
	s := NewAccumulator(Targets{})
	s.Add(video)
	if sum := s.Summary(); sum.Upload == nil || sum.Upload.Count != 1 {
		t.Errorf("a video's upload: %+v", sum.Upload)
	}
	r := away(5000, 100, 200, 300, 400)
	r.Chunks[0].Kind = record.ChunkReasoning
	r.ReasoningTokens = 1
	s = NewAccumulator(Targets{})
	s.Add(r)
	if g := s.Summary().Reasoning; g == nil || g.Requests != 1 || math.Abs(g.AnswerSystemTPS-3/0.4) > 1e-6 {
		t.Errorf("one reasoning token: %+v; want 1 request, 3 answer tokens over 0.4 s", g)
	}
	stop := EarlyStop{Failed: 3, Of: 4, Rate: 0.5}
	if got := stop.String(); !strings.Contains(got, "(75%, over 0.5)") {
		t.Errorf("early stop: %q", got)
	}
	var bins SecondBins
	if c := bins.Cumulative(time.Now()); c != 0 {
		t.Errorf("no tokens counted: cumulative %v", c)
	}
	runs := []Summary{{TTFT: Dist{Count: 1, P99: 80}}, {TTFT: Dist{Count: 1, P99: 90}}}
	if iv, ok := AcrossRuns("s", runs).Figures["ttft_p99_ms"]; !ok || iv.Mean != 85 {
		t.Errorf("TTFT p99 of runs of one request each: %+v, %v", iv, ok)
	}
}

// TestGuideLLMMaximum: GuideLLM's percentile 100 of ten TTFTs is the
// largest, though ten shares of a tenth add up to just under 1.
func TestGuideLLMMaximum(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionGuideLLM).WithPercentiles([]float64{100})
	for i := range 10 {
		ss.Add(away(int64(5000+1000*i), int64(100+10*i)))
	}
	if got := ss.Summaries()[0].TTFT.Percentiles[PercentileKey(100)]; math.Abs(got-190) > 1e-6 {
		t.Errorf("p100 of TTFTs 100 to 190 ms: %v", got)
	}
}
