package metrics

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
	s.Add(away(5200, 100)) // neither retried nor failed
	s.Add(away(5300, 100))
	sum := s.Summary()
	if sum.Retried != 1 {
		t.Errorf("retried %d, want 1", sum.Retried)
	}
	if f := sum.Charts.Failures; len(f) != 1 || f[0] != failed.Abs(failed.Done) {
		t.Errorf("failure marks %v, want the one end at %d", f, failed.Abs(failed.Done))
	}
	if sum.CachedShare != 0.25 { // the others counted no prompt tokens
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
	near(t, "stddev", d.Stddev, math.Sqrt(0.5*0.53*0.53+0.47*0.47*0.47+0.03*1.47*1.47)) // the population's, by weight
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

// TestClientLoadShare: the share is CPU seconds over wall seconds times
// cores; none for a step of no time or no cores; busy from 75%; a
// stream's bytes the peak over the streams.
func TestClientLoadShare(t *testing.T) {
	c := NewClientLoad(3, 2, 2)
	if c.Share != 0.75 || !c.Busy() {
		t.Errorf("3 CPU-s over 2 s on 2 cores: %+v", c)
	}
	if NewClientLoad(1, 2, 2).Busy() {
		t.Error("25% busy")
	}
	for _, c := range []*ClientLoad{NewClientLoad(1, 0, 2), NewClientLoad(1, 2, 0)} {
		if c.Share != 0 {
			t.Errorf("%+v: a share without time or cores", c)
		}
	}
	c.PeakBytes, c.Streams = 1000, 4
	if c.BytesPerStream() != 250 || (&ClientLoad{PeakBytes: 1000}).BytesPerStream() != 0 {
		t.Errorf("bytes a stream %d", c.BytesPerStream())
	}
}

// TestGenAIPerfFastestITL: an ITL that rounds to 1 ns is a rate of 1e9
// tokens/s a user; one of 0 ns no rate.
func TestGenAIPerfFastestITL(t *testing.T) {
	for _, c := range []struct {
		span  int64 // ns from the first response to the last, over 2 tokens' gaps
		rates int64
	}{{2, 1}, {0, 0}} {
		r := away(5000, 100, 100, 100)
		r.Chunks[1].At, r.Chunks[2].At = r.Chunks[0].At+c.span/2, r.Chunks[0].At+c.span
		r.Last = r.Sent + r.Chunks[2].At
		r.Done = r.Last
		ss := NewSteps(Targets{}).WithConvention(ConventionGenAIPerf)
		ss.Add(r)
		d := ss.Summaries()[0].RequestTPS
		if d.Count != c.rates || (c.rates > 0 && d.Mean != 1e9) {
			t.Errorf("a span of %d ns: rates %+v", c.span, d)
		}
	}
}

// TestTokenizerShortCounted: each request whose tokenizer counted fewer
// tokens than its chunks carried is counted.
func TestTokenizerShortCounted(t *testing.T) {
	s := NewAccumulator(Targets{})
	for range 2 {
		r := away(5000, 100, 200, 300)
		r.TokenSource, r.Tokenizer, r.TokenizerTokens, r.UsageTokens = record.SourceChunks, "gpt2", 2, 0
		s.Add(r)
	}
	over := away(5000, 100)
	over.Tokenizer, over.TokenizerTokens = "gpt2", 5 // counted more than the chunks: not short
	s.Add(over)
	plain := away(5000, 100, 200)
	plain.TokenSource = record.SourceChunks // counted by its chunks, no tokenizer asked
	s.Add(plain)
	if n := s.Summary().TokenizerShort; n != 2 {
		t.Errorf("%d tokenizer-short, want 2", n)
	}
}

// TestPhasesAndPlannedCancels: requests of a ramp-up or cool-down are
// counted as such and not measured; one the plan cancelled is cancelled,
// neither failed nor completed.
func TestPhasesAndPlannedCancels(t *testing.T) {
	s := NewAccumulator(Targets{})
	for _, phase := range []string{"ramp_up", "ramp_up", "cool_down", ""} {
		r := away(5000, 100, 200)
		r.Phase = phase
		s.Add(r)
	}
	c := away(5000, 100)
	c.Fail(record.KindClientCancel, "cancelled by the plan")
	s.Add(c)
	sum := s.Summary()
	if sum.RampUp != 2 || sum.CoolDown != 1 || sum.Requests.Completed != 1 || sum.Requests.Cancelled != 1 || sum.Requests.Failed != 0 || sum.OutputTokens != 2 {
		t.Errorf("ramp-up %d, cool-down %d, requests %+v, %d tokens", sum.RampUp, sum.CoolDown, sum.Requests, sum.OutputTokens)
	}
}

// TestShortOutputs: a request known to have ended before its budget, by a
// finish reason other than the length limit or by the server's count, is
// short; a count of chunks proves nothing.
func TestShortOutputs(t *testing.T) {
	for _, c := range []struct {
		finish, source string
		short          bool
	}{
		{"stop", record.SourceChunks, true}, {"length", record.SourceUsage, false}, {"", record.SourceUsage, true}, {"", record.SourceChunks, false},
	} {
		s := NewAccumulator(Targets{})
		r := away(5000, 100, 200)
		r.MaxTokens, r.FinishReason, r.TokenSource = 10, c.finish, c.source
		s.Add(r)
		full := away(5000, 100, 200)
		full.MaxTokens, full.FinishReason = 2, "stop" // its whole budget
		s.Add(full)
		if got := s.Summary().ShortOutputs; (got == 1) != c.short || got > 1 {
			t.Errorf("finish %q from %s: %d short", c.finish, c.source, got)
		}
	}
}

// TestSlicesOfSends: a request counts in the slice of its send; a send
// before the run's clock began is in none; a failed one is sent, not
// completed.
func TestSlicesOfSends(t *testing.T) {
	ss := NewSteps(Targets{}).WithSlices(time.Second)
	ss.Add(away(500, 100, 200))
	ss.Add(away(1500, 100))
	failed := &record.Record{V: 1, T0: 1_700_000_000e9, Sent: 1700 * ms, Scheduled: 1700 * ms, Done: 1800 * ms}
	failed.Fail(record.KindTimeout, "slow")
	ss.Add(failed)
	early := away(0, 50)
	early.Sent, early.Scheduled, early.First, early.Last, early.Done = -10*ms, -10*ms, 40*ms, 40*ms, 40*ms
	ss.Add(early)
	sl := ss.Summaries()[0].Slices
	if len(sl) != 2 || sl[0].Requests != 1 || sl[0].Tokens != 2 || sl[1].Requests != 2 || sl[1].Completed != 1 || sl[1].StartS != 1 {
		t.Errorf("slices %+v", sl)
	}
}

// TestConventionNames: every listed convention is one; others are not.
func TestConventionNames(t *testing.T) {
	for _, c := range Conventions {
		if CheckConvention(c) != nil {
			t.Errorf("%s refused", c)
		}
	}
	if CheckConvention("sglang") == nil {
		t.Error("sglang taken")
	}
}

// TestPassOfSteps: steps pass when every target of every one passed.
func TestPassOfSteps(t *testing.T) {
	ok, bad := Summary{Targets: []Verdict{{Pass: true}}}, Summary{Targets: []Verdict{{Pass: true}, {Pass: false}}}
	if !Pass([]Summary{ok, {}}) || Pass([]Summary{ok, bad}) {
		t.Error("pass of steps")
	}
}

// TestEarlyStopSays: a stop by count and by share, in a sentence each.
func TestEarlyStopSays(t *testing.T) {
	if s := (&EarlyStop{Failed: 5, Limit: 5}).String(); s != "5 of its requests had failed (the limit was 5)" {
		t.Errorf("%q", s)
	}
	if s := (&EarlyStop{Failed: 3, Of: 10, Rate: 0.2}).String(); s != "3 of its last 10 finished requests had failed (30%, over 0.2)" {
		t.Errorf("%q", s)
	}
}

// TestTargetsCheckEach: targets are checked one by one.
func TestTargetsCheckEach(t *testing.T) {
	if err := (Targets{List: []Target{{Name: TargetTTFT, Want: 1}, {Name: TargetTTFT, Want: -1}}}).Check(); err == nil {
		t.Error("a negative target taken")
	}
	if _, err := ParseSLO("system_tps=fast"); err == nil || !strings.Contains(err.Error(), "want tokens per second") {
		t.Errorf("system_tps=fast: %v", err)
	}
}

// TestNegativeSamplesAreZero: a negative duration (a clock stepped back)
// counts as 0.
func TestNegativeSamplesAreZero(t *testing.T) {
	h := newLatency()
	h.add(-5)
	h.add(10)
	if d := h.summary(1); d.Min != 0 || d.Mean != 5 {
		t.Errorf("%+v", d)
	}
}

// TestShortenedReasons: a long message is cut at a rune's end and says so.
func TestShortenedReasons(t *testing.T) {
	msg := strings.Repeat("é", 200) // 400 bytes
	_, ex := Reason(&record.Error{Kind: "http", Message: msg})
	if !strings.HasSuffix(ex, "...") || len(ex) > maxReasonBytes+3 || !utf8.ValidString(ex) {
		t.Errorf("example of %d bytes: %q", len(ex), ex)
	}
}

// TestAchievedRateOutOfOrder: the achieved rate spans the first send to
// the last, whatever order the records came in: sends at 5, 4 and 4.5 s
// are 2 gaps over 1 s.
func TestAchievedRateOutOfOrder(t *testing.T) {
	s := NewAccumulator(Targets{})
	for _, at := range []int64{5000, 4000, 4500} {
		r := away(at, 100)
		r.Rate = 2
		s.Add(r)
	}
	if got := s.Summary().AchievedRate; got != 2 {
		t.Errorf("achieved rate %v, want 2", got)
	}
}

// TestGenAIPerfNeedsAnAnswer: GenAI-Perf times a response by its answer:
// one of reasoning chunks alone, or whose tokens were all reasoning, has
// no TTFT, even sent at the clock's 0.
func TestGenAIPerfNeedsAnAnswer(t *testing.T) {
	onlyReasoning := rec(0, []int64{100, 200}, []int{2, 2})
	onlyReasoning.Chunks[0].Kind, onlyReasoning.Chunks[1].Kind = record.ChunkReasoning, record.ChunkReasoning
	onlyReasoning.ReasoningTokens = 1
	allReasoning := rec(0, []int64{100, 200}, []int{1, 1})
	allReasoning.ReasoningTokens = 2
	for name, r := range map[string]*record.Record{"reasoning chunks": onlyReasoning, "reasoning tokens": allReasoning} {
		ss := NewSteps(Targets{}).WithConvention(ConventionGenAIPerf)
		ss.Add(r)
		if d := ss.Summaries()[0].TTFT; d.Count != 0 {
			t.Errorf("%s: TTFT %+v", name, d)
		}
	}
}

// TestRepeatsLeaveOutRunsWithoutFigures: a run with no completed request
// has no system TPS to average.
func TestRepeatsLeaveOutRunsWithoutFigures(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 100, 200))
	ran := s.Summary()
	r := AcrossRuns("c=1", []Summary{ran, {}})
	if iv := r.Figures["system_tps"]; len(iv.Values) != 1 || iv.Mean != ran.SystemTPS {
		t.Errorf("system TPS %+v, want the one run's %v", iv, ran.SystemTPS)
	}
}

// TestBinWidthLadder: the rolling bins widen along their ladder as a
// step's span grows past maxBins of each width (7.3 hours of 100 ms).
func TestBinWidthLadder(t *testing.T) {
	day := int64(24 * time.Hour / time.Millisecond)
	for _, c := range []struct {
		apart int64 // ms
		width time.Duration
	}{
		{day, time.Second}, {4 * day, 2 * time.Second}, {20 * day, 10 * time.Second}, {45 * day, 20 * time.Second},
		{100 * day, time.Minute}, {300 * day, 2 * time.Minute}, {730 * day, 10 * time.Minute}, {2920 * day, 20 * time.Minute},
		{7300 * day, time.Hour}, {36500 * day, 6 * time.Hour},
	} {
		s := NewAccumulator(Targets{})
		s.Add(away(5000, 100))
		s.Add(away(5000+c.apart, 100))
		if got := s.Summary().Charts.RollingStepMS; got != float64(c.width/time.Millisecond) {
			t.Errorf("%d days apart: bins of %v ms, want %v", c.apart/day, got, c.width)
		}
	}
}

// TestInputsPerSecond: an outputless step's inputs over its window.
func TestInputsPerSecond(t *testing.T) {
	s := NewAccumulator(Targets{})
	for i := range 2 {
		s.Add(&record.Record{V: 1, T0: 1_700_000_000e9, Sent: int64(i) * 1000 * ms, Scheduled: int64(i) * 1000 * ms, Done: int64(i)*1000*ms + 1000*ms, API: "embeddings", Inputs: 8, PromptTokens: 16})
	}
	if sum := s.Summary(); sum.InputsPerSecond != 8 || sum.DurationS != 2 {
		t.Errorf("%v inputs/s over %v s, want 8 over 2", sum.InputsPerSecond, sum.DurationS)
	}
}

// TestGuideLLMMergesAtTheWindowsEdge: events exactly 0.1 ms apart are one
// moment: tokens at 500 and 500.1 ms of a 1 s window are 2 at 0.5 s,
// rates 0, 4 and 0 over a quarter, a half and a quarter second: a median
// of 0.
func TestGuideLLMMergesAtTheWindowsEdge(t *testing.T) {
	start := int64(1_700_000_000e9)
	d := guidellmRates([]guidellmEvent{{start + 500_000_000, 1}, {start + 500_100_000, 1}}, start, start+1e9)
	if d.P50 != 0 || d.Max != 4 {
		t.Errorf("%+v, want a median of 0 and a maximum of 4", d)
	}
}

// TestFloorDivision: bins of times before the epoch round down.
func TestFloorDivision(t *testing.T) {
	for _, c := range [][3]int64{{7, 2, 3}, {-7, 2, -4}, {-4, 2, -2}, {-1, 100, -1}, {0, 5, 0}, {6, -4, -2}} {
		if got := floorDiv(c[0], c[1]); got != c[2] {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

// TestRunsBound: the loads of at most 2^16 runs are added up.
func TestRunsBound(t *testing.T) {
	s := NewAccumulator(Targets{})
	r := away(5000, 100)
	r.Concurrency = 1
	for i := range maxRuns + 1 {
		r.Run = strconv.Itoa(i)
		s.addLoad(r)
	}
	if s.concurrency != maxRuns || maxRuns != 1<<16 {
		t.Errorf("concurrency %d from %d runs of 1", s.concurrency, maxRuns+1)
	}
}

// TestBinsSpanTheSends: the rolling bins span from the first send, not
// only the tokens: a token 10 hours after its send widens them.
func TestBinsSpanTheSends(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 10*3600*1000))
	if got := s.Summary().Charts.RollingStepMS; got != 200 {
		t.Errorf("bins of %v ms over 10 hours, want 200", got)
	}
}

// TestNoPriceOrTimeNoCost: a cost needs a price and a duration.
func TestNoPriceOrTimeNoCost(t *testing.T) {
	if c := CostAt(&Summary{DurationS: 0, OutputTokens: 10}, 2); c != nil {
		t.Errorf("cost %+v of a step of no time", c)
	}
	if c := CostAt(&Summary{DurationS: 10, OutputTokens: 10}, -1); c != nil {
		t.Errorf("cost %+v at a negative price", c)
	}
}

// TestCachedShareWithoutPrompts: no prompt tokens, no share (never NaN).
func TestCachedShareWithoutPrompts(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 100))
	if sh := s.Summary().CachedShare; sh != 0 {
		t.Errorf("cached share %v", sh)
	}
}

// TestDefinitionEdges: figures at the edges of their definitions.
func TestDefinitionEdges(t *testing.T) {
	t.Run("one failed request is an error rate of 1", func(t *testing.T) {
		s := NewAccumulator(Targets{})
		r := away(5000, 10)
		r.Fail(record.KindHTTPStatus, "HTTP 500")
		if got := s.summaryOf(r).ErrorRate; got != 1 {
			t.Errorf("error rate %v", got)
		}
	})
	t.Run("an answer of no token has no TTFT, whatever its first stamp", func(t *testing.T) {
		r := away(5000, 10)
		r.Chunks, r.OutputTokens, r.UsageTokens = nil, 0, 0 // a stop string matched at once
		if sum := NewAccumulator(Targets{}).summaryOf(r); sum.TTFT.Count != 0 || sum.E2E.Count != 0 || sum.Requests.Completed != 1 {
			t.Errorf("TTFT %+v, E2E %+v, requests %+v", sum.TTFT, sum.E2E, sum.Requests)
		}
	})
	t.Run("an instant answer of a request that generates nothing has an E2E of 0", func(t *testing.T) {
		r := &record.Record{V: 1, Sent: 5 * ms, Done: 5 * ms, Inputs: 2}
		if sum := NewAccumulator(Targets{}).summaryOf(r); sum.E2E.Count != 1 || sum.E2E.Max != 0 {
			t.Errorf("E2E %+v", sum.E2E)
		}
	})
	t.Run("GenAI-Perf counts with its tokenizer, one token too", func(t *testing.T) {
		ss := NewSteps(Targets{}).WithConvention(ConventionGenAIPerf)
		r := away(5000, 10, 20)
		r.TokenizerTokens = 1
		ss.Add(r)
		if got := ss.Summaries()[0].OutputTokens; got != 1 {
			t.Errorf("output tokens %d, want the tokenizer's 1", got)
		}
	})
	t.Run("targets around spaces and a trailing comma", func(t *testing.T) {
		ts, err := ParseSLO(" ttft=500ms , ")
		if err != nil || len(ts) != 1 || ts[0].Name != TargetTTFT || ts[0].Want != 500 {
			t.Errorf("%+v, %v", ts, err)
		}
	})
	t.Run("a step keeps its first maxSlices slices", func(t *testing.T) {
		was := maxSlices
		maxSlices = 3
		defer func() { maxSlices = was }()
		ss := NewSteps(Targets{}).WithSlices(time.Second)
		for i := range 5 {
			ss.Add(rec(int64(i)*1000+100, []int64{10}, []int{1}))
		}
		if sum := ss.Summaries()[0]; len(sum.Slices) != 3 || sum.Slices[2].StartS != 2 || sum.SlicesLeftOut != 2 {
			t.Errorf("%d slices, %d requests left out: %+v", len(sum.Slices), sum.SlicesLeftOut, sum.Slices)
		}
	})
}

// summaryOf is the summary of one record.
func (s *Accumulator) summaryOf(r *record.Record) Summary {
	s.Add(r)
	return s.Summary()
}
