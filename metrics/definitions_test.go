package metrics

import (
	"math"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// Figures pinned from their definitions (docs/metrics.md, docs/design.md),
// each worked by hand or computed apart from the code under test.

// TestUseCaseTargets: the per-use-case targets of docs/design.md: chat at
// least 30 tokens/s a request, code at least 50, batch at least 200 for
// the step as a whole.
func TestUseCaseTargets(t *testing.T) {
	for _, c := range []struct {
		name string
		want Target
	}{
		{"chat", Target{Name: TargetRequestTPS, Want: 30, UseCase: "chat"}},
		{"code", Target{Name: TargetRequestTPS, Want: 50, UseCase: "code"}},
		{"batch", Target{Name: TargetSystemTPS, Want: 200, UseCase: "batch"}},
	} {
		got, err := UseCase(c.name)
		if err != nil || got != c.want {
			t.Errorf("UseCase(%q) = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	if _, err := UseCase("chatbot"); err == nil {
		t.Error("an unknown use case was taken")
	}
}

// TestTargetUnitsAndSides: latencies are ms and met at or below the
// value; rates are tok/s and met at or above it.
func TestTargetUnitsAndSides(t *testing.T) {
	for _, c := range []struct {
		name   string
		unit   string
		higher bool
	}{
		{TargetTTFT, "ms", false}, {TargetTPOT, "ms", false}, {TargetE2E, "ms", false},
		{TargetRequestTPS, "tok/s", true}, {TargetDecodeTPS, "tok/s", true}, {TargetSystemTPS, "tok/s", true},
	} {
		tg := Target{Name: c.name, Want: 10}
		if tg.Unit() != c.unit {
			t.Errorf("%s: unit %q, want %q", c.name, tg.Unit(), c.unit)
		}
		if !tg.meets(10) {
			t.Errorf("%s: the value itself does not meet it", c.name)
		}
		if tg.meets(11) != c.higher || tg.meets(9) == c.higher {
			t.Errorf("%s: 11 meets %v, 9 meets %v", c.name, tg.meets(11), tg.meets(9))
		}
	}
}

// TestTargetsShareBounds: a share above 0 and at most 1, or 0 for the
// default; 1 (every request) is a share.
func TestTargetsShareBounds(t *testing.T) {
	for share, ok := range map[float64]bool{0: true, 0.5: true, 1: true, 1.0001: false, -0.1: false, math.NaN(): false} {
		if err := (Targets{Share: share}).Check(); (err == nil) != ok {
			t.Errorf("share %v: %v", share, err)
		}
	}
}

// TestDecodeTPSOfOneTokenAnswers: decode TPS is tokens after the first
// over the time after it; an answer of one token has none, so a
// decode_tps target over such answers cannot be measured, and fails.
func TestDecodeTPSOfOneTokenAnswers(t *testing.T) {
	s := NewAccumulator(Targets{List: []Target{{Name: TargetDecodeTPS, Want: 1}}})
	s.Add(away(5000, 100))
	s.Add(away(5100, 50))
	v := s.Summary().Targets[0]
	if !v.NotMeasurable || v.Pass {
		t.Errorf("decode_tps over one-token answers: %+v, want not measurable and failed", v)
	}
	s = NewAccumulator(Targets{List: []Target{{Name: TargetDecodeTPS, Want: 10}}})
	s.Add(away(5000, 100, 150, 200)) // 2 tokens over 100 ms: 20 tok/s
	if v := s.Summary().Targets[0]; v.NotMeasurable || !v.Pass || v.Got != 20 {
		t.Errorf("decode_tps of 20 tok/s: %+v", v)
	}
}

// TestTargetWithoutAFigure: a target no figure answers (a name no
// Check was asked of) is not measurable, never met by a 0.
func TestTargetWithoutAFigure(t *testing.T) {
	s := NewAccumulator(Targets{List: []Target{{Name: "throughput", Want: 1}}})
	s.Add(away(5000, 100, 200))
	if v := s.Summary().Targets[0]; !v.NotMeasurable || v.Pass {
		t.Errorf("%+v, want not measurable", v)
	}
}

// TestVerdictBeyondAnHour: a latency over an hour is held at the top of
// the tables' range; the verdict quotes the tables' percentile there too.
func TestVerdictBeyondAnHour(t *testing.T) {
	hourMS := int64(3600e3)
	ss := NewSteps(Targets{Share: 0.99, List: []Target{{Name: TargetE2E, Want: 1e9}}})
	ss.Add(away(5000, hourMS*3/2))
	ss.Add(away(5000, hourMS*3))
	sum := ss.Summaries()[0]
	if got := sum.Targets[0].Got; got != sum.E2E.P99 {
		t.Errorf("E2E verdict %v ms, the table's p99 %v ms", got, sum.E2E.P99)
	}
}

// TestPeerConventionsTimeFromTheSend: under each peer's convention TTFT
// and E2E run from the request's send, whatever the clock's origin.
func TestPeerConventionsTimeFromTheSend(t *testing.T) {
	for _, c := range []string{ConventionGuideLLM, ConventionVLLM, ConventionGenAIPerf} {
		ss := NewSteps(Targets{}).WithConvention(c)
		r := away(5000, 100, 200, 300)
		r.Done = r.Last + 20*ms // GuideLLM's latency runs to the response's end
		ss.Add(r)
		sum := ss.Summaries()[0]
		wantE2E := 300.0
		if c == ConventionGuideLLM {
			wantE2E = 320
		}
		near(t, c+" TTFT", sum.TTFT.Mean, 100)
		near(t, c+" E2E", sum.E2E.Mean, wantE2E)
	}
}

// TestGuideLLMTinyAndInstantSteps: a step shorter than GuideLLM's merge
// window (0.1 ms) is one moment: no rate over time, and no failure; a
// first token stamped at the send (TTFT 0) is one of its samples.
func TestGuideLLMTinyAndInstantSteps(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionGuideLLM)
	r := away(5000, 0)
	r.Chunks[0].At = 50000 // 0.05 ms
	r.First, r.Last, r.Done = r.Sent+50000, r.Sent+50000, r.Sent+50000
	ss.Add(r)
	if d := ss.Summaries()[0].RequestTPS; d.Count != 0 {
		t.Errorf("a step of 0.05 ms: rates %+v", d)
	}
	ss = NewSteps(Targets{}).WithConvention(ConventionGuideLLM)
	ss.Add(away(5000, 0, 100))
	if sum := ss.Summaries()[0]; sum.TTFT.Count != 1 || sum.TTFT.Mean != 0 {
		t.Errorf("TTFT 0: %+v", sum.TTFT)
	}
}

// TestGenAIPerfWindowWithoutLaterContent: GenAI-Perf's window ends at the
// last response with content; where none came after the first send (an
// answer whose content was all in the first instant) the window is the
// step's own, first send to last end.
func TestGenAIPerfWindowWithoutLaterContent(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionGenAIPerf)
	r := away(5000, 0)
	r.Done = r.Sent + 500*ms
	ss.Add(r)
	near(t, "duration", ss.Summaries()[0].DurationS, 0.5)
}

// TestVLLMOneAnswerOfOneToken: vLLM's mean of an empty list is 0: a step
// whose one completed answer had one token has TPOT and ITL 0, one value.
func TestVLLMOneAnswerOfOneToken(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	ss.Add(away(5000, 100))
	sum := ss.Summaries()[0]
	for name, d := range map[string]Dist{"TPOT": sum.TPOT, "ITL": sum.ITL} {
		if d.Count != 1 || d.Mean != 0 {
			t.Errorf("%s %+v, want one value of 0", name, d)
		}
	}
}

// TestEnergyFigures: joules over output tokens and its inverse, none when
// the meter could not be read.
func TestEnergyFigures(t *testing.T) {
	e := NewEnergy("rapl", 50, 200, "")
	if e.Joules != 50 || e.JoulesPerToken != 0.25 || e.TokensPerJoule != 4 || e.Unavailable != "" {
		t.Errorf("50 J over 200 tokens: %+v", e)
	}
	e = NewEnergy("rapl", 50, 200, "no permission")
	if e.Joules != 0 || e.JoulesPerToken != 0 || e.Unavailable != "no permission" || e.Source != "rapl" {
		t.Errorf("unavailable: %+v", e)
	}
	if e := NewEnergy("dcgm", 50, 0, ""); e.JoulesPerToken != 0 || e.TokensPerJoule != 0 || e.Joules != 50 {
		t.Errorf("no tokens: %+v", e)
	}
}

// TestStepCountsEveryRequest: the counts a step sums over its requests,
// each added more than once so that a count that does not add shows.
func TestStepCountsEveryRequest(t *testing.T) {
	s := NewAccumulator(Targets{})
	for i := range 3 {
		r := away(5000+int64(i)*100, 100, 200)
		r.Images, r.Audios, r.Videos = 1, 2, 3
		r.UsageSuspect = "usage below the chunks"
		r.Run, r.Concurrency = "run-a", 4
		s.Add(r)
	}
	sum := s.Summary()
	if sum.Images != 3 || sum.Audios != 6 || sum.Videos != 9 {
		t.Errorf("media %d, %d, %d; want 3, 6, 9", sum.Images, sum.Audios, sum.Videos)
	}
	if sum.UsageSuspect != 3 {
		t.Errorf("usage suspect in %d, want 3", sum.UsageSuspect)
	}
	if sum.Concurrency != 4 {
		t.Errorf("concurrency %d from three records of one run of 4", sum.Concurrency)
	}
}

// TestAudioFiguresOnlyFromAudio: the real-time factor is the audio's
// seconds over the time its requests took; a request without audio in
// the same step adds neither.
func TestAudioFiguresOnlyFromAudio(t *testing.T) {
	s := NewAccumulator(Targets{})
	a := away(5000, 100, 200)
	a.AudioSeconds, a.Done = 10, a.Sent+2000*ms
	s.Add(a)
	s.Add(away(5000, 100, 3000)) // no audio, 3 s
	sum := s.Summary()
	if sum.AudioSeconds != 10 || sum.RealTimeFactor != 5 {
		t.Errorf("audio %v s, real-time factor %v; want 10 and 5", sum.AudioSeconds, sum.RealTimeFactor)
	}
}

// TestTimelineOfTheOneRequest: the token timeline is drawn for a step of
// one request, from the record as it was added; two requests have none.
func TestTimelineOfTheOneRequest(t *testing.T) {
	s := NewAccumulator(Targets{})
	r := away(5000, 100, 200, 300)
	s.Add(r)
	r.Chunks[2].At = 900 * ms // the caller reuses its record
	tl := s.Summary().Charts.Tokens
	if len(tl) != 3 || tl[2].MS != 300 {
		t.Errorf("timeline %+v, want 3 tokens, the last at 300 ms", tl)
	}
	s.Add(away(5500, 100))
	if tl := s.Summary().Charts.Tokens; tl != nil {
		t.Errorf("two requests drew a timeline of %d points", len(tl))
	}
}

// TestLateStartsPastAMillisecond: a request sent more than 1 ms after it
// was due makes the client late; chunks read together meanwhile are the
// client's batching. Sent 1.5 ms late: its 1 batched chunk counts.
func TestLateStartsPastAMillisecond(t *testing.T) {
	late := away(5001, 100) // due at 4999.5 ms, sent at 5001
	late.Scheduled = late.Sent - 1500000
	b := away(4999, 1, 1) // two chunks read together at 5000 ms
	s := NewAccumulator(Targets{})
	s.Add(late)
	s.Add(b)
	if sum := s.Summary(); sum.BatchedChunks != 1 || sum.BatchedWhileLate != 1 {
		t.Errorf("batched %d, while late %d; want 1 and 1", sum.BatchedChunks, sum.BatchedWhileLate)
	}
}

// TestSingleArrivalsTakeNoMarks: only arrivals of several chunks are
// kept as marks (their number is bounded): a million single ones before
// a batched one leave room for it.
func TestSingleArrivalsTakeNoMarks(t *testing.T) {
	var l lateStarts
	r := away(5000, 1)
	r.Chunks = make([]record.Chunk, record.MaxChunks)
	for i := range r.Chunks {
		r.Chunks[i] = record.Chunk{At: int64(i+1) * 1000, Tokens: 1}
	}
	for range maxLateMarks/record.MaxChunks + 1 {
		l.arrived(r)
	}
	if len(l.batched) != 0 {
		t.Fatalf("%d marks of single arrivals", len(l.batched))
	}
}

// TestReasonKeyFoldsEveryDigit: messages differing only in numbers are
// one reason, every digit 0-9 included.
func TestReasonKeyFoldsEveryDigit(t *testing.T) {
	if got := ReasonKey("http", "status 509 after 0.9s"); got != "http:status # after #.#s" {
		t.Errorf("key %q", got)
	}
	if ReasonKey("http", "slot 9") != ReasonKey("http", "slot 0") {
		t.Error("slot 9 and slot 0 are two reasons")
	}
}

// TestStepsGeneratingFirst: a step of both kinds gives the generating
// requests' summary first, whichever kind came first, and steps come in
// their order, an outputless part of one before the next step.
func TestStepsGeneratingFirst(t *testing.T) {
	for _, embeddingsFirst := range []bool{false, true} {
		for range 20 { // the parts are held in a map: its order varies
			ss := NewSteps(Targets{})
			chat := away(5000, 100)
			emb := &record.Record{V: 1, T0: chat.T0, Sent: 5000 * ms, Scheduled: 5000 * ms, Done: 5100 * ms, API: "embeddings", Inputs: 2, PromptTokens: 8}
			if embeddingsFirst {
				ss.Add(emb)
				ss.Add(chat)
			} else {
				ss.Add(chat)
				ss.Add(emb)
			}
			later := away(6000, 100) // step 1: after both parts of step 0
			later.StepIndex, later.Step = 1, "next"
			ss.Add(later)
			sums := ss.Summaries()
			if len(sums) != 3 || sums[0].Outputless || !sums[1].Outputless || sums[2].Label != "next" {
				t.Fatalf("embeddings first %v: summaries %d, the first outputless %v, the last %q", embeddingsFirst, len(sums), sums[0].Outputless, sums[len(sums)-1].Label)
			}
		}
	}
}

// TestIntervalsOverlapAtAnEnd: intervals that share only an end overlap.
func TestIntervalsOverlapAtAnEnd(t *testing.T) {
	a, b := Interval{Low: 1, High: 2}, Interval{Low: 2, High: 3}
	if !Overlap(a, b) || !Overlap(b, a) {
		t.Error("[1, 2] and [2, 3] do not overlap")
	}
	if Overlap(a, Interval{Low: 2.5, High: 3}) || Overlap(Interval{Low: 2.5, High: 3}, a) {
		t.Error("[1, 2] and [2.5, 3] overlap")
	}
}

// TestRepeatFiguresOfOneSample: a run whose figure rests on one sample
// still has it.
func TestRepeatFiguresOfOneSample(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 100, 200))
	one := s.Summary()
	r := AcrossRuns("c=1", []Summary{one, one})
	for _, name := range RepeatFigureNames() {
		if _, ok := r.Figures[name]; !ok {
			t.Errorf("%s missing from runs of one request each", name)
		}
	}
}

// TestStudentT: the two-sided 95% critical values are Student's t
// distribution's, computed here by integrating its density, to the
// tables' three decimals; from 30 degrees of freedom on, the normal's.
func TestStudentT(t *testing.T) {
	for df := 1; df <= 29; df++ {
		if got, want := tCritical95(df), studentQuantile975(float64(df)); math.Abs(got-want) > 0.0006 {
			t.Errorf("df %d: %v, want %.4f", df, got, want)
		}
	}
	for _, df := range []int{30, 100, 0} {
		if got := tCritical95(df); got != 1.96 {
			t.Errorf("df %d: %v, want 1.96", df, got)
		}
	}
}

// studentQuantile975 is the t with 0.475 of Student's distribution of df
// degrees of freedom between 0 and it: bisection over Simpson's rule.
func studentQuantile975(df float64) float64 {
	lg1, _ := math.Lgamma((df + 1) / 2)
	lg2, _ := math.Lgamma(df / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(df*math.Pi)
	density := func(x float64) float64 { return c * math.Pow(1+x*x/df, -(df+1)/2) }
	mass := func(t float64) float64 {
		const n = 20000
		h := t / n
		s := density(0) + density(t)
		for i := 1; i < n; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			s += w * density(float64(i)*h)
		}
		return s * h / 3
	}
	lo, hi := 0.0, 20.0
	for range 60 {
		mid := (lo + hi) / 2
		if mass(mid) < 0.475 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// TestSecondTokenAndPrefill: TTST is the second token-bearing chunk's
// arrival after the first's; prefill TPS the prompt's tokens over TTFT.
// Sent at 5 s: chunks at 100, 130 and 150 ms, 50 prompt tokens: TTST 30
// ms, prefill 500 tokens/s. An answer of one chunk has no TTST; a
// request without a prompt count no prefill TPS.
func TestSecondTokenAndPrefill(t *testing.T) {
	s := NewAccumulator(Targets{})
	r := away(5000, 100, 130, 150)
	r.PromptTokens = 50
	s.Add(r)
	s.Add(away(6000, 40))
	sum := s.Summary()
	if sum.TTST.Count != 1 || sum.TTST.Mean != 30 {
		t.Errorf("TTST %+v, want one of 30 ms", sum.TTST)
	}
	if sum.PrefillTPS.Count != 1 || sum.PrefillTPS.Mean != 500 {
		t.Errorf("prefill TPS %+v, want one of 500", sum.PrefillTPS)
	}
	if len(sum.Charts.CDF["ttst_ms"]) == 0 {
		t.Error("no TTST CDF")
	}
}
