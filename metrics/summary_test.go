package metrics

import (
	"math"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

const ms = int64(1e6)

// rec builds a completed streamed record: sent at sent ms, chunks at the
// given ms offsets after sent, each with the given tokens.
func rec(sent int64, at []int64, tokens []int) *record.Record {
	r := &record.Record{V: 1, Stream: true, Sent: sent * ms, Scheduled: sent * ms, TokenSource: record.SourceUsage}
	n := 0
	for i := range at {
		r.Chunks = append(r.Chunks, record.Chunk{At: at[i] * ms, Tokens: tokens[i]})
		n += tokens[i]
	}
	r.OutputTokens, r.UsageTokens = n, n
	r.First = r.Sent + r.Chunks[0].At
	r.Last = r.Sent + r.Chunks[len(r.Chunks)-1].At
	r.Done = r.Last
	return r
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	// Stamps are whole nanoseconds: figures derived by division may be off by 1 ns.
	if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestSingleRequestFigures(t *testing.T) {
	// TTFT 100 ms, then 4 chunks 20 ms apart, the third carrying 3 tokens.
	r := rec(0, []int64{100, 120, 140, 160, 180}, []int{1, 1, 3, 1, 1})
	s := NewAccumulator(Targets{})
	s.Add(r)
	sum := s.Summary()
	near(t, "output tokens", float64(sum.OutputTokens), 7)
	near(t, "TTFT", sum.TTFT.Mean, 100)
	near(t, "E2E", sum.E2E.Mean, 180)
	near(t, "request TPS", sum.RequestTPS.Mean, 7/0.180)
	near(t, "TPOT", sum.TPOT.Mean, 80.0/6)
	near(t, "decode TPS", sum.DecodeTPS.Mean, 6/0.080)
	// ITL: 20, then 3 samples of 20/3, then 20, 20: six samples (n - first chunk's tokens).
	if sum.ITL.Count != 6 {
		t.Fatalf("ITL samples %d, want 6", sum.ITL.Count)
	}
	near(t, "ITL mean", sum.ITL.Mean, (20+20+20+20)/6.0)
	near(t, "ITL min", sum.ITL.Min, 20.0/3)
	near(t, "inter-chunk count", float64(sum.InterChunk.Count), 4)
	near(t, "inter-chunk mean", sum.InterChunk.Mean, 20)
	near(t, "system TPS", sum.SystemTPS, 7/0.180)
	near(t, "achieved concurrency", sum.AchievedConcurrency, 1)
	if sum.TokenMismatch != 1 {
		t.Errorf("token mismatch %d, want 1 (5 chunks, 7 tokens)", sum.TokenMismatch)
	}
}

func TestStepWindowAndThroughput(t *testing.T) {
	s := NewAccumulator(Targets{})
	// Two overlapping requests and one failure that ends last, at a rate.
	first := rec(0, []int64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	first.Rate, first.Model = 5, "m"
	s.Add(first)
	s.Add(rec(500, []int64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}))
	failed := &record.Record{V: 1, Sent: 600 * ms, Scheduled: 550 * ms, Done: 2000 * ms}
	failed.Fail(record.KindTimeout, "slow")
	s.Add(failed)
	warm := rec(-5000, []int64{10}, []int{1})
	warm.Warmup = true
	s.Add(warm)
	sum := s.Summary()
	near(t, "duration", sum.DurationS, 2.0)
	near(t, "system TPS", sum.SystemTPS, 20/2.0)
	near(t, "request throughput", sum.RequestThroughput, 2/2.0)
	near(t, "achieved concurrency", sum.AchievedConcurrency, 1.0) // 2 s of E2E over 2 s: failed requests carry no E2E
	near(t, "per-request TPS", sum.PerRequestTPS, 10)
	if sum.Requests.Completed != 2 || sum.Requests.Failed != 1 || sum.Requests.Failures[record.KindTimeout] != 1 || sum.Warmup != 1 {
		t.Fatalf("requests %+v warmup %d", sum.Requests, sum.Warmup)
	}
	near(t, "TTFT mean (failures excluded)", sum.TTFT.Mean, 100)
	near(t, "client lag max", sum.ClientLag.Max, 50)
	near(t, "achieved rate", sum.AchievedRate, 2/0.6)
	// Tokens arrive at 100..1000 ms and 600..1500 ms; the busiest whole
	// second [0.6 s, 1.6 s) holds 5 + 10 = 15 tokens.
	near(t, "peak TPS", sum.PeakTPS, 15)
	if len(sum.Charts.Rolling1s) == 0 {
		t.Fatal("no rolling TPS")
	}
}

func TestPercentiles(t *testing.T) {
	s := NewAccumulator(Targets{})
	for i := int64(1); i <= 1000; i++ {
		s.Add(rec(0, []int64{i, i + 10}, []int{1, 1}))
	}
	sum := s.Summary()
	check := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > want*0.001+1e-9 { // HDR keeps 3 significant digits
			t.Errorf("%s = %v, want %v within 0.1%%", name, got, want)
		}
	}
	check("p50", sum.TTFT.P50, 500)
	check("p90", sum.TTFT.P90, 900)
	check("p99", sum.TTFT.P99, 990)
	check("p99.9", sum.TTFT.P999, 999)
	near(t, "min", sum.TTFT.Min, 1)
	near(t, "max", sum.TTFT.Max, 1000)
	near(t, "mean", sum.TTFT.Mean, 500.5)
	near(t, "stddev", sum.TTFT.Stddev, math.Sqrt(1000*1001/12.0))
}

func TestTargets(t *testing.T) {
	slo, err := ParseSLO("ttft=150ms,request_tps=10,system_tps=5")
	if err != nil {
		t.Fatal(err)
	}
	s := NewAccumulator(Targets{List: slo, Share: 0.5})
	// TTFTs 100, 200, 300 ms; 2 tokens each, last 100 ms after first.
	for i := int64(1); i <= 3; i++ {
		s.Add(rec(0, []int64{i * 100, i*100 + 100}, []int{1, 1}))
	}
	failed := &record.Record{V: 1, Done: 10}
	failed.Fail(record.KindHTTPStatus, "503")
	s.Add(failed)
	sum := s.Summary()
	if len(sum.Targets) != 3 {
		t.Fatalf("verdicts %v", sum.Targets)
	}
	ttft, tps, sys := sum.Targets[0], sum.Targets[1], sum.Targets[2]
	// One of four requests meets ttft <= 150 ms: 25% < 50% needed.
	near(t, "ttft met", ttft.Met, 0.25)
	if ttft.Pass {
		t.Error("ttft target passed with 25% meeting it")
	}
	// request TPS: 2/0.2=10, 2/0.3=6.67, 2/0.4=5: one meets >= 10.
	near(t, "request_tps met", tps.Met, 0.25)
	// system TPS: 6 tokens over 0.4 s = 15 >= 5.
	near(t, "system_tps got", sys.Got, 15)
	if !sys.Pass || Pass([]Summary{sum}) {
		t.Errorf("system pass %v, overall %v", sys.Pass, Pass([]Summary{sum}))
	}
	if sum.Goodput == nil || sum.Goodput.Requests != 1 {
		t.Fatalf("goodput %+v, want 1 request", sum.Goodput)
	}
}

func TestParseSLO(t *testing.T) {
	good := map[string][]Target{
		"ttft=500ms,tpot=40ms":   {{Name: TargetTTFT, Want: 500}, {Name: TargetTPOT, Want: 40}},
		"e2e=2s, request_tps=30": {{Name: TargetE2E, Want: 2000}, {Name: TargetRequestTPS, Want: 30}},
		"ttft=250":               {{Name: TargetTTFT, Want: 250}},
		"":                       nil,
	}
	for in, want := range good {
		got, err := ParseSLO(in)
		if err != nil || len(got) != len(want) {
			t.Errorf("ParseSLO(%q) = %v, %v", in, got, err)
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("ParseSLO(%q)[%d] = %v, want %v", in, i, got[i], want[i])
			}
		}
	}
	for _, bad := range []string{"ttft", "speed=3", "ttft=fast", "system_tps=-1", "request_tps=NaN", "tpot=0"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) accepted", bad)
		}
	}
}

func FuzzParseSLO(f *testing.F) {
	f.Add("ttft=500ms,tpot=40ms,request_tps=30,system_tps=200")
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseSLO(s)
		if err != nil {
			return
		}
		for _, x := range ts {
			if !(x.Want > 0) || math.IsInf(x.Want, 0) {
				t.Fatalf("accepted bad value %v from %q", x.Want, s)
			}
		}
	})
}

func TestConventions(t *testing.T) {
	// TTFT 100 ms, then chunks every 20 ms, the third carrying 3 tokens: 7 tokens, E2E 180 ms.
	mk := func() *record.Record { return rec(0, []int64{100, 120, 140, 160, 180}, []int{1, 1, 3, 1, 1}) }
	cases := []struct {
		convention string
		tpotMean   float64
		tpotCount  int64
		itlMean    float64
		itlCount   int64
	}{
		{ConventionTpsbench, 80.0 / 6, 1, 80.0 / 6, 6},
		{ConventionVLLM, 80.0 / 6, 1, 20, 4},
		{ConventionGuideLLM, 180.0 / 7, 7, 80.0 / 6, 6}, // weighted by n and n - 1
		{ConventionGenAIPerf, 0, 0, 80.0 / 6, 1},
	}
	for _, c := range cases {
		ss := NewSteps(Targets{}).WithConvention(c.convention)
		ss.Add(mk())
		sum := ss.Summaries()[0]
		if sum.TPOT.Count != c.tpotCount || (c.tpotCount > 0 && math.Abs(sum.TPOT.Mean-c.tpotMean) > 1e-6) {
			t.Errorf("%s: TPOT %+v, want mean %v count %d", c.convention, sum.TPOT, c.tpotMean, c.tpotCount)
		}
		if sum.ITL.Count != c.itlCount || math.Abs(sum.ITL.Mean-c.itlMean) > 1e-6 {
			t.Errorf("%s: ITL %+v, want mean %v count %d", c.convention, sum.ITL, c.itlMean, c.itlCount)
		}
	}
	if CheckConvention("llmperf2") == nil {
		t.Error("unknown convention accepted")
	}
}

// TestAchievedRateOnlyForRateSteps: a concurrency step's sends follow the
// server's pace, not a schedule; its "achieved rate" read 18,407-53,542
// requests/s from a burst of simultaneous starts. It is absent there.
func TestAchievedRateOnlyForRateSteps(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want float64
	}{{0, 0}, {10, 1000.0 / 100}} {
		s := NewAccumulator(Targets{})
		for i := int64(0); i < 11; i++ {
			r := rec(i*100, []int64{10, 20}, []int{1, 1})
			r.Rate, r.Concurrency = c.rate, 4
			s.Add(r)
		}
		if got := s.Summary().AchievedRate; got != c.want {
			t.Errorf("rate %v: achieved %v, want %v", c.rate, got, c.want)
		}
	}
}

// TestCompletedWithoutTokens: a completed response with no token to time
// counts as completed, and adds no TTFT or E2E sample (it had no first
// or last token).
func TestCompletedWithoutTokens(t *testing.T) {
	s := NewAccumulator(Targets{List: []Target{{Name: TargetTTFT, Want: 100}}})
	s.Add(rec(0, []int64{50, 60}, []int{1, 1}))
	s.Add(&record.Record{V: 1, Sent: 100 * ms, Done: 120 * ms, TokenSource: record.SourceUsage, FinishReason: "stop"})
	sum := s.Summary()
	if sum.Requests.Completed != 2 || sum.TTFT.Count != 1 || sum.E2E.Count != 1 || sum.TTFT.Min < 0 {
		t.Errorf("completed %d, TTFT %+v, E2E count %d", sum.Requests.Completed, sum.TTFT, sum.E2E.Count)
	}
}

// TestVLLMConvention: figures as vLLM's bench serve computes them
// (endpoint_request_func.py, serve.py calculate_metrics), worked by hand
// with numpy's definitions: TTFT and latency from any event with choices
// (a role-only first event, a finish-only last one), ITL between such
// events, TPOT (latency - TTFT) / (n - 1); np.percentile interpolates
// linearly, np.std is the population's.
func TestVLLMConvention(t *testing.T) {
	a := rec(0, []int64{20, 30, 45}, []int{1, 1, 1})
	a.OtherEvents = []int64{10 * ms, 50 * ms} // role, then finish
	a.Done = 50 * ms
	b := rec(100, []int64{5, 25}, []int{1, 1})
	ss := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	ss.Add(a)
	ss.Add(b)
	sum := ss.Summaries()[0]
	for _, c := range []struct {
		name     string
		d        Dist
		count    int64
		mean, sd float64
		p50, p99 float64
		min, max float64
	}{
		// TTFT 10 and 5 ms
		{"TTFT", sum.TTFT, 2, 7.5, 2.5, 7.5, 5 + 5*0.99, 5, 10},
		// ITL 10, 10, 15, 5 and 20 ms: sorted 5 10 10 15 20
		{"ITL", sum.ITL, 5, 12, math.Sqrt(26), 10, 15 + 5*0.96, 5, 20},
		// latency 50 and 25 ms
		{"E2E", sum.E2E, 2, 37.5, 12.5, 37.5, 25 + 25*0.99, 25, 50},
		// TPOT (50 - 10) / 2 and (25 - 5) / 1
		{"TPOT", sum.TPOT, 2, 20, 0, 20, 20, 20, 20},
	} {
		d := c.d
		for _, v := range []struct {
			what      string
			got, want float64
		}{{"count", float64(d.Count), float64(c.count)}, {"mean", d.Mean, c.mean}, {"stddev", d.Stddev, c.sd},
			{"p50", d.P50, c.p50}, {"p99", d.P99, c.p99}, {"min", d.Min, c.min}, {"max", d.Max, c.max}} {
			if math.Abs(v.got-v.want) > 1e-9 {
				t.Errorf("%s %s = %v, want %v", c.name, v.what, v.got, v.want)
			}
		}
	}
}

// peerRecords are three requests sent at 0: chunks at 100, 200, 300 ms
// (done at 350); one chunk at 50 (done at 60); chunks at 20, 40 (done at
// 40). One token a chunk, counts from usage.
func peerRecords() []*record.Record {
	a := rec(0, []int64{100, 200, 300}, []int{1, 1, 1})
	a.Done = 350 * ms
	b := rec(0, []int64{50}, []int{1})
	b.Done = 60 * ms
	c := rec(0, []int64{20, 40}, []int{1, 1})
	return []*record.Record{a, b, c}
}

type wantDist struct {
	name                            string
	d                               Dist
	count                           int64
	mean, sd, p50, p90, p99, lo, hi float64
}

func checkDists(t *testing.T, convention string, cases []wantDist) {
	t.Helper()
	for _, c := range cases {
		for _, v := range []struct {
			what      string
			got, want float64
		}{{"count", float64(c.d.Count), float64(c.count)}, {"mean", c.d.Mean, c.mean}, {"stddev", c.d.Stddev, c.sd},
			{"p50", c.d.P50, c.p50}, {"p90", c.d.P90, c.p90}, {"p99", c.d.P99, c.p99}, {"min", c.d.Min, c.lo}, {"max", c.d.Max, c.hi}} {
			if math.Abs(v.got-v.want) > 1e-6*math.Max(1, math.Abs(v.want)) {
				t.Errorf("%s %s %s = %v, want %v", convention, c.name, v.what, v.got, v.want)
			}
		}
	}
}

// TestGuideLLMConvention: figures as GuideLLM computes them
// (schemas/request_stats.py, benchmark/schemas/metrics.py
// GenerativeMetrics.compile, schemas/statistics.py DistributionSummary),
// worked by hand: TPOT (last - start) / n weighted by n; ITL (last -
// first) / (n - 1) weighted by n - 1 (a one-token request has none);
// latency to the response's end; percentiles are the first value whose
// cumulative weight share reaches p; standard deviation the population's.
// Its output tokens per second is a rate over the step's token events.
func TestGuideLLMConvention(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionGuideLLM)
	for _, r := range peerRecords() {
		ss.Add(r)
	}
	s := ss.Summaries()[0]
	checkDists(t, "guidellm", []wantDist{
		// 100, 50, 20
		{"TTFT", s.TTFT, 3, 170.0 / 3, math.Sqrt((math.Pow(100-170.0/3, 2) + math.Pow(50-170.0/3, 2) + math.Pow(20-170.0/3, 2)) / 3), 50, 100, 100, 20, 100},
		// 300/3 three times, 50/1 once, 40/2 twice: 20 20 50 100 100 100
		{"TPOT", s.TPOT, 6, 65, math.Sqrt((2*45*45 + 15*15 + 3*35*35) / 6.0), 50, 100, 100, 20, 100},
		// 200/2 twice, 20/1 once; the one-token request none: 20 100 100
		{"ITL", s.ITL, 3, 220.0 / 3, math.Sqrt((math.Pow(20-220.0/3, 2) + 2*math.Pow(100-220.0/3, 2)) / 3), 100, 100, 100, 20, 100},
		// to the end: 350, 60, 40
		{"E2E", s.E2E, 3, 150, math.Sqrt((200*200 + 90*90 + 110*110) / 3.0), 60, 350, 350, 40, 350},
		// Token events (s): 0.02, 0.04, 0.05, 0.1, 0.2, 0.3, one token
		// each, in the window 0-0.35 (its ends add none). Each rate is its
		// tokens over the time between the midpoints around it: 0 (0.01 and
		// 0.025 s), 50 (0.02), 66.7 (0.015), 33.3 (0.03), 13.3 (0.075 twice),
		// 10 (0.1). The mean is 6 tokens / 0.35 s. The share up to 33.3 is
		// 0.9 exactly, a little under it in floating point (as in numpy's
		// sums), so p90 is the next rate, 50.
		{"request TPS", s.RequestTPS, 6, 6 / 0.35, guidellmRateSD(), 40.0 / 3, 50, 200.0 / 3, 0, 200.0 / 3},
	})
}

// guidellmRateSD is the standard deviation of TestGuideLLMConvention's
// rates under their time weights.
func guidellmRateSD() float64 {
	mean := 6 / 0.35
	rates := []struct{ v, w float64 }{{0, 0.035}, {50, 0.02}, {200.0 / 3, 0.015}, {100.0 / 3, 0.03}, {40.0 / 3, 0.15}, {10, 0.1}}
	v := 0.0
	for _, r := range rates {
		v += (r.v - mean) * (r.v - mean) * r.w / 0.35
	}
	return math.Sqrt(v)
}

// TestGenAIPerfConvention: figures as GenAI-Perf computes them
// (profile_data_parser/llm_profile_data_parser.py, metrics/statistics.py),
// worked by hand: latency to the last response with content; ITL per
// request (latency - TTFT) / (n - 1) rounded to the ns, n > 1 only; no
// TPOT; numpy's statistics; duration from the first request to the last
// response.
func TestGenAIPerfConvention(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionGenAIPerf)
	for _, r := range peerRecords() {
		ss.Add(r)
	}
	s := ss.Summaries()[0]
	checkDists(t, "genai-perf", []wantDist{
		{"TTFT", s.TTFT, 3, 170.0 / 3, math.Sqrt((math.Pow(100-170.0/3, 2) + math.Pow(50-170.0/3, 2) + math.Pow(20-170.0/3, 2)) / 3), 50, 50 + 50*0.8, 50 + 50*0.98, 20, 100},
		// (300 - 100) / 2 and (40 - 20) / 1
		{"ITL", s.ITL, 2, 60, 40, 60, 20 + 80*0.9, 20 + 80*0.99, 20, 100},
		// 300, 50, 40
		{"E2E", s.E2E, 3, 130, math.Sqrt((170*170 + 80*80 + 90*90) / 3.0), 50, 50 + 250*0.8, 50 + 250*0.98, 40, 300},
	})
	if s.TPOT.Count != 0 {
		t.Errorf("genai-perf TPOT %+v, want none", s.TPOT)
	}
	// 6 tokens from the first request (0) to the last response (300 ms)
	near(t, "genai-perf output token throughput", s.SystemTPS, 20)
}

// TestRankQuantile: cases from GuideLLM's tests/unit/schemas/test_statistics.py
// (test_from_pdf_small_distributions): one value is every percentile; of
// two, each percentile is one of them, never between.
func TestRankQuantile(t *testing.T) {
	one := newRank()
	one.add(5)
	two := newRank()
	two.add(3)
	two.add(7)
	for _, q := range []float64{0.1, 50, 99.9} {
		if got := one.quantile(q); got != 5 {
			t.Errorf("p%v of [5] = %v", q, got)
		}
		if got := two.quantile(q); got != 3 && got != 7 {
			t.Errorf("p%v of [3 7] = %v, not one of them", q, got)
		}
	}
	if two.quantile(50) != 3 || two.quantile(99.9) != 7 {
		t.Errorf("[3 7]: p50 %v, p99.9 %v; want 3 (cumulative share 0.5 reaches 0.5) and 7", two.quantile(50), two.quantile(99.9))
	}
}

// TestGenAIPerfCountsWithItsTokenizer: GenAI-Perf counts output with its
// tokenizer even where the server reports usage; the record keeps a
// configured tokenizer's count for it.
func TestGenAIPerfCountsWithItsTokenizer(t *testing.T) {
	r := rec(0, []int64{100, 200, 300}, []int{1, 1, 1}) // usage: 3
	r.TokenizerTokens = 5
	ss := NewSteps(Targets{}).WithConvention(ConventionGenAIPerf)
	ss.Add(r)
	s := ss.Summaries()[0]
	if s.OutputTokens != 5 || math.Abs(s.ITL.Mean-50) > 1e-9 {
		t.Errorf("tokens %d, ITL %v ms; want 5 and (300 - 100) / 4 = 50", s.OutputTokens, s.ITL.Mean)
	}
}

// TestNoPeakForShortSteps: a step shorter than two windows has no peak
// apart from its whole (it fell back to the overall rate, or by the
// edges' bins a "peak" under it: 47.0 against a system TPS of 47.08).
func TestNoPeakForShortSteps(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(rec(0, []int64{100, 400, 700, 1000, 1300}, []int{1, 1, 1, 1, 1})) // a 1.3 s step
	if sum := s.Summary(); sum.PeakTPS != 0 || sum.PeakTPS60 != 0 {
		t.Errorf("peaks %v and %v of a 1.3 s step, want none", sum.PeakTPS, sum.PeakTPS60)
	}
}

// TestVerdictQuotesTheTablesPercentile: a target's value is the tables'
// percentile at its share (held in whole ms, 81.05 ms was quoted as 81.00
// beside a p99 of 81.10, and as the median 81.00 for 80.73).
func TestVerdictQuotesTheTablesPercentile(t *testing.T) {
	for _, share := range []float64{0.99, 0.5} {
		s := NewAccumulator(Targets{Share: share, List: []Target{{Name: TargetTTFT, Want: 81.05}}})
		for i := 0; i < 100; i++ {
			ttft := int64(80_500_000 + i*6_000) // 80.500 to 81.094 ms
			s.Add(&record.Record{V: 3, Sent: 0, First: ttft, Last: ttft + ms, Done: ttft + ms, OutputTokens: 2,
				Chunks: []record.Chunk{{At: ttft, Tokens: 1}, {At: ttft + ms, Tokens: 1}}})
		}
		sum := s.Summary()
		want := sum.TTFT.P99
		if share == 0.5 {
			want = sum.TTFT.P50
		}
		if got := sum.Targets[0].Got; got != want {
			t.Errorf("share %v: verdict quotes %.4f ms, the table %.4f", share, got, want)
		}
	}
}

// TestStepOfBothKinds: a step whose records both generate (chat) and do
// not (embeddings), as an app's traffic through the proxy does, gives a
// summary of each kind, generating first, each labelled with its API: the
// chat requests' tokens and TPS are the chat requests' own, the
// embeddings' inputs theirs.
func TestStepOfBothKinds(t *testing.T) {
	ss := NewSteps(Targets{})
	for i := range 4 {
		r := rec(int64(i)*10, []int64{50, 70, 90}, []int{1, 2, 1}) // 4 tokens in 90 ms
		r.Step, r.API = "proxy", "chat"
		ss.Add(r)
	}
	for i := range 3 {
		r := &record.Record{V: 1, Step: "proxy", API: "embeddings", Sent: int64(i) * 10 * ms, Scheduled: int64(i) * 10 * ms,
			Done: (int64(i)*10 + 30) * ms, Inputs: 2, PromptTokens: 8}
		ss.Add(r)
	}
	sums := ss.Summaries()
	if len(sums) != 2 {
		t.Fatalf("%d summaries, want one a kind", len(sums))
	}
	chat, emb := sums[0], sums[1]
	if chat.Label != "proxy (chat)" || chat.Outputless || chat.OutputTokens != 16 || chat.Requests.Completed != 4 {
		t.Errorf("chat: label %q, outputless %v, %d tokens of %d requests", chat.Label, chat.Outputless, chat.OutputTokens, chat.Requests.Completed)
	}
	near(t, "chat system TPS", chat.SystemTPS, 16/0.120) // first sent at 0, last done at 120 ms
	if emb.Label != "proxy (embeddings)" || !emb.Outputless || emb.Inputs != 6 || emb.Requests.Completed != 3 {
		t.Errorf("embeddings: label %q, outputless %v, %d inputs of %d requests", emb.Label, emb.Outputless, emb.Inputs, emb.Requests.Completed)
	}
	one := NewSteps(Targets{})
	r := rec(0, []int64{50}, []int{1})
	r.Step = "s"
	one.Add(r)
	if got := one.Summaries()[0].Label; got != "s" {
		t.Errorf("a step of one kind labelled %q, want its own label", got)
	}
}
