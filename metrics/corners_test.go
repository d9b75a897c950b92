package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// TestStepTotalsAwayFromZero: the step's sums and shares over records
// sent at 5 s and 5.5 s (TestFiguresAwayFromZero's): a ramp's rates in
// the order 4, 2, 6 span 2 to 6; request bytes add up; total TPS is input
// and output tokens (30 + 6) over the 0.75 s window; two servers are named
// as two; goodput at request TPS 9 is the one request of 10 tokens/s, 4
// tokens, over the window.
func TestStepTotalsAwayFromZero(t *testing.T) {
	a, b, c := away(5000, 100, 200, 300, 400), away(5500, 50, 250), away(5200, 100)
	a.Rate, b.Rate, c.Rate = 4, 2, 6
	a.RequestBytes, b.RequestBytes, c.RequestBytes = 100, 250, 1
	a.PromptTokens, b.PromptTokens, c.PromptTokens = 10, 20, 0
	a.URL, b.URL, c.URL = "http://a", "http://b", "http://a"
	c.Error = &record.Error{Kind: record.KindTimeout, Message: "x"}
	s := NewAccumulator(Targets{Share: 0.5, List: []Target{{Name: TargetRequestTPS, Want: 9}}})
	for _, r := range []*record.Record{a, b, c} {
		s.Add(r)
	}
	sum := s.Summary()
	if sum.RampFrom != 2 || sum.RampTo != 6 {
		t.Errorf("ramp %v to %v, want 2 to 6", sum.RampFrom, sum.RampTo)
	}
	if sum.RequestBytes != 351 {
		t.Errorf("request bytes %d, want 351", sum.RequestBytes)
	}
	near(t, "total TPS", sum.TotalTPS, 36/0.75)
	near(t, "error rate", sum.ErrorRate, 1.0/3)
	if sum.URL != "2 servers" || len(sum.URLs) != 2 {
		t.Errorf("URL %q, %d servers", sum.URL, len(sum.URLs))
	}
	if g := sum.Goodput; g == nil || g.Requests != 1 {
		t.Fatalf("goodput %+v: want the one request of 10 tokens/s", g)
	}
	near(t, "goodput requests/s", sum.Goodput.RequestThroughput, 1/0.75)
	near(t, "goodput TPS", sum.Goodput.TPS, 4/0.75)
}

// TestOutputCountsJudged: a streamed response whose chunks disagree with
// its usage is counted as a mismatch, a whole (not streamed) response of
// one body is not; an output of exactly its budget is not long, one past
// it is.
func TestOutputCountsJudged(t *testing.T) {
	mismatched := away(5000, 100, 200)
	mismatched.OutputTokens, mismatched.UsageTokens = 3, 3
	whole := away(5000, 400)
	whole.Stream, whole.OutputTokens, whole.UsageTokens = false, 4, 4
	atBudget, pastBudget := away(5000, 100, 200), away(5000, 100, 200)
	atBudget.MaxTokens, pastBudget.MaxTokens = 2, 1
	for _, c := range []struct {
		name           string
		r              *record.Record
		mismatch, long int
	}{
		{"chunks against usage", mismatched, 1, 0},
		{"a whole response", whole, 0, 0},
		{"output at the budget", atBudget, 0, 0},
		{"output past the budget", pastBudget, 0, 1},
	} {
		s := NewAccumulator(Targets{})
		s.Add(c.r)
		if sum := s.Summary(); sum.TokenMismatch != c.mismatch || sum.LongOutputs != c.long {
			t.Errorf("%s: mismatch %d long %d, want %d %d", c.name, sum.TokenMismatch, sum.LongOutputs, c.mismatch, c.long)
		}
	}
	if rate := NewAccumulator(Targets{}).Summary().ErrorRate; rate != 0 {
		t.Errorf("error rate of a step that measured nothing: %v, want 0", rate)
	}
}

// TestSingleRequestTimeline: one request's chart is its arrivals, tokens
// adding up, each later arrival's instant TPS its tokens over the gap
// since the one before: 1 at 100 ms, 2 at 200 ms (20/s), 1 at 400 ms (5/s).
func TestSingleRequestTimeline(t *testing.T) {
	r := away(5000, 100, 200, 400)
	r.Chunks[1].Tokens = 2
	r.OutputTokens, r.UsageTokens = 4, 4
	s := NewAccumulator(Targets{})
	s.Add(r)
	got := s.Summary().Charts.Tokens
	want := []TokenPoint{{MS: 100, Cumulative: 1}, {MS: 200, Cumulative: 3, InstantTPS: 20}, {MS: 400, Cumulative: 4, InstantTPS: 5}}
	if len(got) != len(want) {
		t.Fatalf("timeline %+v", got)
	}
	for i := range want {
		if got[i].Cumulative != want[i].Cumulative || math.Abs(got[i].MS-want[i].MS) > 1e-9 || math.Abs(got[i].InstantTPS-want[i].InstantTPS) > 1e-9 {
			t.Errorf("point %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestTranscriptionRates: 10 s of audio answered in 2 s and 4 s in 1 s,
// sent at 5 s and 5.5 s: real-time factor 14 / 3, and 14 audio seconds
// over the window of 5 s to 7 s: 7 a second.
func TestTranscriptionRates(t *testing.T) {
	s := NewAccumulator(Targets{})
	for _, r := range []*record.Record{
		{V: 1, T0: 1_700_000_000e9, Sent: 5000 * ms, Scheduled: 5000 * ms, Done: 7000 * ms, Inputs: 1, AudioSeconds: 10, Audios: 1},
		{V: 1, T0: 1_700_000_000e9, Sent: 5500 * ms, Scheduled: 5500 * ms, Done: 6500 * ms, Inputs: 1, AudioSeconds: 4, Audios: 1},
	} {
		s.Add(r)
	}
	sum := s.Summary()
	near(t, "real-time factor", sum.RealTimeFactor, 14.0/3)
	near(t, "audio seconds a second", sum.AudioSecondsPerSecond, 7)
	near(t, "audio seconds", sum.AudioSeconds, 14)
}

// TestSmallCorners: the edges of small rules, each by its definition.
func TestSmallCorners(t *testing.T) {
	h := newLatency()
	h.addN(math.NaN(), 1)
	h.addN(math.Inf(1), 1)
	h.addN(5, 0)
	if h.n != 0 {
		t.Errorf("NaN, infinity and no samples added %d samples", h.n)
	}
	if k := ReasonKey("http", "ab12cd34ef"); k != "http:ab#cd#ef" {
		t.Errorf("reason key %q: want each run of digits one #", k)
	}
	if qs, err := ParsePercentiles("0.5,99.9"); err != nil || len(qs) != 2 || qs[0] != 0.5 {
		t.Errorf("percentiles 0.5 and 99.9: %v, %v", qs, err)
	}
	// GuideLLM's rates with tokens at the window's very start: 5 tokens
	// at 0 s and at 1 s of a 2 s window. Moments 0, 1, 2 own 0.5, 1 and
	// 0.5 s: rates 10, 5 and 0 a second, weighted so, mean 5
	const start = int64(1_700_000_000e9)
	d := guidellmRates([]guidellmEvent{{start, 5}, {start + 1e9, 5}}, start, start+2e9)
	near(t, "GuideLLM rate max", d.Max, 10)
	near(t, "GuideLLM rate mean", d.Mean, 5)
}

// TestSliceCorners: a request whose first token came the nanosecond it
// was sent has a TTFT of 0 in its slice, one that generated nothing (sent
// at the run's very start, where its unset first stamp equals its send)
// has none; slices of any length above 0,
// even 1 ns, are kept.
func TestSliceCorners(t *testing.T) {
	r := rec(200, []int64{100}, []int{1})
	r.First = r.Sent
	r.Chunks[0].At = 0
	ss := NewSteps(Targets{}).WithSlices(time.Second)
	ss.Add(r)
	got := ss.Summaries()[0].Slices
	if len(got) != 1 || got[0].TTFT.Count != 1 || got[0].TTFT.Max != 0 {
		t.Errorf("slices %+v: want one, its TTFT 0", got)
	}
	embed := NewSteps(Targets{}).WithSlices(time.Second)
	embed.Add(&record.Record{V: 1, Sent: 0, Done: 5 * ms, Inputs: 2, PromptTokens: 8})
	if got := embed.Summaries()[0].Slices; len(got) != 1 || got[0].Completed != 1 || got[0].TTFT.Count != 0 {
		t.Errorf("an embedding sent at the run's start: slices %+v, want it completed with no TTFT", got)
	}
	tiny := NewSteps(Targets{}).WithSlices(time.Nanosecond)
	tiny.Add(rec(0, []int64{0}, []int{1}))
	if got := tiny.Summaries()[0].Slices; len(got) == 0 {
		t.Error("slices of 1 ns: none")
	}
}
