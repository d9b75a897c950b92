package metrics

import (
	"fmt"
	"math"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// maxRuns bounds the runs whose loads a step adds up (merged shards).
const maxRuns = 1 << 16

// Accumulator takes the records of one step and gives its Summary.
type Accumulator struct {
	targets     Targets
	convention  string
	percentiles []float64 // asked for besides the usual ones

	label, model, url, api string
	concurrency            int     // of every run the step's records came from
	rate                   float64 // likewise
	runs                   map[string]bool

	req          Requests
	inputs       int64 // of the completed requests that generate nothing (embeddings)
	outputless   bool  // the step's requests generate nothing: no TPS applies
	warmup       int
	rampUp       int
	coolDown     int
	media        mediaAcc
	http         httpAcc
	accuracy     accuracyAcc
	requestBytes int64
	sources      map[string]int
	mismatch     int
	// tokenizerShort counts the requests whose tokenizer counted fewer
	// tokens than chunks carried them, whose chunks' count was used
	tokenizerShort int
	suspect        int
	retried        int
	chunks         int64
	batched        int64
	short          int
	long           int

	start, end          int64   // window: first sent, last done (absolute ns)
	rateLo, rateHi      float64 // the rates requests were started at (a ramp's differ)
	firstScheduled      int64   // vLLM's window starts at the schedule's start
	lastToken           int64   // GenAI-Perf's ends at the last token (absolute ns)
	firstSent, lastSent int64
	sentCount           int
	inTok, outTok       int64
	cachedTok           int64
	e2eSum              float64 // ns
	bins                tokenBins

	lag, ttft, tpot, itl, gaps, e2e *histogram
	reqTPS, decTPS                  *histogram
	ttst, prefillTPS                *histogram
	guidellm                        []guidellmEvent // its token events, for its output TPS
	reasoning                       reasoningAcc
	replay                          replayAcc
	sessions                        sessionAcc
	models, urls                    byPart // the step's figures by model and by server
	slices                          sliceAcc

	// per target: requests meeting it, and values from completed requests
	met    []int
	values []*histogram
	good   int
	goodTk int64

	failEnds []int64
	late     lateStarts
	reasons  reasons
	single   *record.Record // the first completed record, kept while it is the only one
}

// NewAccumulator returns an empty step checked against targets.
func NewAccumulator(targets Targets) *Accumulator {
	s := &Accumulator{
		targets: targets,
		sources: map[string]int{},
		req:     Requests{Failures: map[string]int{}},
		lag:     newLatency(), ttft: newLatency(), tpot: newLatency(),
		itl: newLatency(), gaps: newLatency(), e2e: newLatency(),
		reqTPS: newRate(), decTPS: newRate(), ttst: newLatency(), prefillTPS: newRate(),
		reasoning: newReasoningAcc(), replay: newReplayAcc(), sessions: newSessionAcc(), models: byPart{}, urls: byPart{}, slices: sliceAcc{slices: map[int64]*sliceBin{}},
		met: make([]int, len(targets.List)),
	}
	for _, t := range targets.List {
		if t.Name == TargetTTFT || t.Name == TargetTPOT || t.Name == TargetE2E {
			s.values = append(s.values, newLatencyMS())
		} else {
			s.values = append(s.values, newRate())
		}
	}
	return s
}

// requestFigures are one record's figures, in ns and tokens/s.
type requestFigures struct {
	ttft, e2e, tpot float64
	hasTimes        bool // a token arrived: TTFT and E2E are defined
	hasE2E          bool // E2E is defined: a token arrived, or the answer of a request that generates none
	hasTPOT         bool
	tps             float64
	hasTPS          bool
}

func figures(r *record.Record) requestFigures {
	// a completed response can carry no token at all (a stop string that
	// matched at once): it has no first or last token to time
	f := requestFigures{ttft: float64(r.TTFT()), e2e: float64(r.E2E()), hasTimes: r.OutputTokens > 0 && r.First >= r.Sent}
	f.hasE2E = f.hasTimes || (r.Outputless() && r.Done >= r.Sent)
	if tpot, ok := r.TPOT(); ok {
		f.tpot, f.hasTPOT = float64(tpot), true
	}
	f.tps, f.hasTPS = r.RequestTPS()
	return f
}

// Add counts one record. Warm-up records are only counted as such.
func (s *Accumulator) Add(r *record.Record) {
	if s.label == "" && s.model == "" {
		s.label, s.model, s.url, s.api = r.Step, r.Model, r.URL, r.API
	}
	s.addLoad(r)
	if r.Warmup {
		s.warmup++
		return
	}
	switch r.Phase { // the load still rising, or falling away: not the step's
	case "ramp_up":
		s.rampUp++
		return
	case "cool_down":
		s.coolDown++
		return
	}
	s.addWindow(r)
	if s.sentCount == 1 || r.Rate < s.rateLo {
		s.rateLo = r.Rate
	}
	s.rateHi = max(s.rateHi, r.Rate)
	s.lag.add(float64(r.ClientLag()))
	s.replay.add(r)
	s.sessions.add(r)
	s.slices.add(r)
	s.media.sent(r)
	s.outputless = s.outputless || r.Outputless()
	s.requestBytes += int64(r.RequestBytes)
	s.late.started(r)
	if r.Retries > 0 {
		s.retried++
	}
	if r.CancelledByPlan() {
		s.req.Cancelled++
		return
	}
	f := figures(r)
	s.models.add(r.Model, r, f)
	s.urls.add(r.URL, r, f)
	if !r.OK() {
		s.req.Failed++
		s.req.Failures[r.Error.Kind]++
		s.reasons.add(r.Error)
		if len(s.failEnds) < maxMarks {
			s.failEnds = append(s.failEnds, r.Abs(r.Done))
		}
		return
	}
	s.addCompleted(r)
}

// addLoad adds the load of r's run, once a run: the shards of one load
// (merge) are runs of their own, each with its part, and the load is
// theirs together (two shards of concurrency 4 reported "concurrency 4"
// for 8 in flight).
func (s *Accumulator) addLoad(r *record.Record) {
	if _, seen := s.runs[r.Run]; seen || len(s.runs) >= maxRuns {
		return
	}
	if s.runs == nil {
		s.runs = map[string]bool{}
	}
	s.runs[r.Run] = true
	s.concurrency += r.Concurrency
	s.rate += r.Rate
}

// addWindow widens the step's window, from the first sent to the last
// done, to hold r.
func (s *Accumulator) addWindow(r *record.Record) {
	sent, done := r.Abs(r.Sent), r.Abs(r.Done)
	// the rolling series spans the window, so the bins must too
	s.bins.cover(sent)
	s.bins.cover(done)
	if s.sentCount == 0 || sent < s.start {
		s.start = sent
	}
	if s.sentCount == 0 || done > s.end {
		s.end = done
	}
	if sched := r.Abs(r.Scheduled); s.sentCount == 0 || sched < s.firstScheduled {
		s.firstScheduled = sched
	}
	if s.sentCount == 0 || sent < s.firstSent {
		s.firstSent = sent
	}
	if s.sentCount == 0 || sent > s.lastSent {
		s.lastSent = sent
	}
	s.sentCount++
}

// addCompleted counts a completed request's tokens and figures.
func (s *Accumulator) addCompleted(r *record.Record) {
	s.req.Completed++
	if s.req.Completed == 1 {
		c := *r
		c.Chunks = append([]record.Chunk(nil), r.Chunks...)
		s.single = &c
	} else {
		s.single = nil
	}
	if !r.Outputless() { // counted no tokens, from nowhere
		s.sources[r.TokenSource]++
	}
	if r.UsageSuspect != "" {
		s.suspect++
	}
	s.chunks += int64(len(r.Chunks))
	s.batched += int64(r.Batched())
	s.late.arrived(r)
	if r.Stream && r.TokenSource == record.SourceUsage && len(r.Chunks) != r.UsageTokens {
		s.mismatch++
	}
	if r.Tokenizer != "" && r.TokenSource == record.SourceChunks && r.TokenizerTokens < r.OutputTokens {
		s.tokenizerShort++
	}
	if r.MaxTokens > 0 && endedEarly(r) {
		s.short++
	}
	if r.MaxTokens > 0 && r.OutputTokens > r.MaxTokens {
		s.long++ // the server did not hold to the budget
	}
	if last := r.Abs(r.Last); r.OutputTokens > 0 && last > s.lastToken {
		s.lastToken = last
	}
	s.inTok += int64(r.PromptTokens)
	s.cachedTok += int64(r.CachedTokens)
	if s.convention == ConventionGenAIPerf && r.TokenizerTokens > 0 {
		s.outTok += int64(r.TokenizerTokens) // GenAI-Perf counts with its tokenizer
	} else {
		s.outTok += int64(r.OutputTokens)
	}
	f := figures(r)
	if f.hasE2E {
		s.e2eSum += f.e2e
		if !s.ownTimes() { // another tool's convention times these its own way
			if f.hasTimes {
				s.ttft.add(f.ttft)
			}
			s.e2e.add(f.e2e)
		}
	}
	s.inputs += int64(r.Inputs)
	s.media.completed(r)
	s.http.add(r)
	s.accuracy.add(r)
	if f.hasTPOT && f.tpot > 0 {
		s.decTPS.add(1e9 / f.tpot)
	}
	if d, ok := r.TTST(); ok {
		s.ttst.add(float64(d))
	}
	if v, ok := r.PrefillTPS(); ok {
		s.prefillTPS.add(v)
	}
	if f.hasTPS && s.convention != ConventionGuideLLM && s.convention != ConventionGenAIPerf {
		s.reqTPS.add(f.tps) // those two have their own (convention.go)
	}
	s.conventionSamples(r, f)
	s.reasoning.add(r)
	r.ChunkGaps(func(d time.Duration) { s.gaps.add(float64(d)) })
	sentAbs := r.Abs(r.Sent)
	for _, c := range r.Chunks {
		s.bins.add(sentAbs+c.At, c.Tokens)
	}
	s.addTargets(r, f)
}

// addTargets checks a completed request against the per-request targets:
// it is good (goodput) when it meets them all.
func (s *Accumulator) addTargets(r *record.Record, f requestFigures) {
	good := true
	for i, t := range s.targets.List {
		if !t.perRequest() {
			continue
		}
		v, ok := perRequestValue(t.Name, f)
		if !ok {
			continue // e.g. TPOT of a one-token response: no figure, no miss
		}
		s.values[i].add(v)
		if t.meets(v) {
			s.met[i]++
		} else {
			good = false
		}
	}
	if good {
		s.good++
		s.goodTk += int64(r.OutputTokens)
	}
}

// Summary computes the step's figures from everything added so far.
func (s *Accumulator) Summary() Summary {
	sum := Summary{
		Label: s.label, Model: s.model, URL: s.url, API: s.api,
		Concurrency: s.concurrency, Rate: s.rate,
		Requests: s.req, Warmup: s.warmup, RampUp: s.rampUp, CoolDown: s.coolDown, RequestBytes: s.requestBytes,
		Outputless: s.outputless, Inputs: s.inputs,
		InputTokens: s.inTok, OutputTokens: s.outTok, CachedTokens: s.cachedTok,
		TokenSources: s.sources, TokenMismatch: s.mismatch, TokenizerShort: s.tokenizerShort, UsageSuspect: s.suspect, Retried: s.retried, ShortOutputs: s.short, LongOutputs: s.long,
		Chunks: s.chunks, BatchedChunks: s.batched, BatchedWhileLate: s.late.whileLate(),
		Start: s.start, End: s.end,
		Targets: []Verdict{},
	}
	if s.inTok > 0 {
		sum.CachedShare = float64(s.cachedTok) / float64(s.inTok)
	}
	if measured := s.req.Completed + s.req.Failed; measured > 0 {
		sum.ErrorRate = float64(s.req.Failed) / float64(measured)
	}
	sum.Requests.Reasons, sum.Requests.OtherReasons = s.reasons.sorted(), s.reasons.other
	if s.convention != ConventionTpsbench {
		sum.Convention = s.convention
	}
	window := s.window()
	s.rates(&sum, window)
	s.media.summary(&sum, window)
	s.charts(&sum)
	s.distributions(&sum)
	if len(s.targets.List) > 0 {
		s.verdicts(&sum, window)
	}
	return sum
}

// window is the step's duration in seconds, as the convention times it.
func (s *Accumulator) window() float64 {
	window := float64(s.end-s.start) / 1e9
	switch s.convention {
	case ConventionVLLM:
		// vLLM divides by the benchmark's duration, from its start (the
		// schedule's) to the last request's end
		window = float64(s.end-min(s.firstScheduled, s.start)) / 1e9
	case ConventionGenAIPerf:
		// GenAI-Perf's: first request to the last response with content
		if s.lastToken > s.start {
			window = float64(s.lastToken-s.start) / 1e9
		}
	}
	return window
}

// rates sets the step's rates over its window.
func (s *Accumulator) rates(sum *Summary, window float64) {
	if s.sentCount > 0 && window > 0 {
		sum.DurationS = window
		sum.SystemTPS = float64(s.outTok) / window
		sum.TotalTPS = float64(s.outTok+s.inTok) / window
		sum.RequestThroughput = float64(s.req.Completed) / window
		sum.InputsPerSecond = float64(s.inputs) / window
		if s.convention == ConventionGenAIPerf {
			// it divides every request sent, those whose responses were
			// all empty included
			sum.RequestThroughput = float64(s.req.Completed+s.req.Failures[record.KindEmpty]) / window
		}
		sum.AchievedConcurrency = s.e2eSum / 1e9 / window
	}
	if sum.AchievedConcurrency > 0 {
		sum.PerRequestTPS = sum.SystemTPS / sum.AchievedConcurrency
	}
	// a concurrency step sends as requests end: its sending rate is the
	// server's pace, not a schedule kept, and 18,000-53,000 "requests/s"
	// from a burst of simultaneous starts said nothing
	if s.rate > 0 && s.sentCount > 1 && s.lastSent > s.firstSent {
		sum.AchievedRate = float64(s.sentCount-1) / (float64(s.lastSent-s.firstSent) / 1e9)
	}
	if s.rateHi > s.rateLo && len(s.runs) <= 1 { // shards' rates differ by design, and add up
		sum.RampFrom, sum.RampTo = s.rateLo, s.rateHi
	}
}

// charts sets what HTML reports draw, and the peaks of the rolling
// series, with the reasoning and replay summaries that need the duration.
func (s *Accumulator) charts(sum *Summary) {
	ch := &Charts{Failures: s.failEnds, RollingStepMS: float64(s.bins.resolution()) / 1e6}
	var w1, w60 time.Duration
	ch.Rolling1s, w1 = s.bins.rolling(time.Second, s.start, s.end)
	ch.Rolling60s, w60 = s.bins.rolling(time.Minute, s.start, s.end)
	if w1 > time.Second {
		sum.PeakWindowS = w1.Seconds()
	}
	if w60 > time.Minute {
		sum.PeakWindow60S = w60.Seconds()
	}
	sum.Reasoning = s.reasoning.summary(sum.DurationS)
	sum.Replay = s.replay.summary()
	sum.Sessions = s.sessions.summary()
	sum.Slices, sum.SlicesLeftOut = s.slices.summary(), s.slices.leftOut
	if sum.Models = s.models.figures(); len(sum.Models) > 0 {
		sum.Model = fmt.Sprintf("%d models", len(sum.Models)) // each apart in Models
	}
	if sum.URLs = s.urls.figures(); len(sum.URLs) > 0 {
		sum.URL = fmt.Sprintf("%d servers", len(sum.URLs))
	}
	sum.Charts = ch
	sum.PeakTPS = peak(ch.Rolling1s, w1, sum.DurationS)
	sum.PeakTPS60 = peak(ch.Rolling60s, w60, sum.DurationS)
	ch.CDF = map[string][]Point{
		"ttft_ms": s.ttft.cdf(1e6), "tpot_ms": s.tpot.cdf(1e6), "itl_ms": s.itl.cdf(1e6),
		"e2e_ms": s.e2e.cdf(1e6), "request_tps": s.reqTPS.cdf(1), "ttst_ms": s.ttst.cdf(1e6),
	}
	if s.single != nil {
		ch.Tokens = tokenTimeline(s.single)
	}
}

// distributions sets the step's latency and rate distributions.
func (s *Accumulator) distributions(sum *Summary) {
	const ms = 1e6
	sum.ClientLag = s.lag.summary(ms)
	sum.TTFT = s.ttft.summary(ms)
	sum.TPOT = s.tpot.summary(ms)
	sum.ITL = s.itl.summary(ms)
	sum.InterChunk = s.gaps.summary(ms)
	sum.E2E = s.e2e.summary(ms)
	sum.RequestTPS = s.reqTPS.summary(1)
	if s.convention == ConventionVLLM && s.req.Completed > 0 {
		// vLLM's np.mean(x or 0): an empty list is the one value 0
		for _, d := range []*Dist{&sum.TPOT, &sum.ITL} {
			if d.Count == 0 {
				*d = Dist{Count: 1}
			}
		}
	}
	if s.convention == ConventionGuideLLM {
		sum.RequestTPS = guidellmRates(s.guidellm, s.start, s.end)
	}
	sum.DecodeTPS = s.decTPS.summary(1)
	sum.TTST, sum.PrefillTPS = s.ttst.summary(ms), s.prefillTPS.summary(1)
	sum.HTTP = s.http.summary(s.percentiles)
	sum.Accuracy = s.accuracy.summary()
	for _, d := range []struct {
		dist *Dist
		h    *histogram
		unit float64
	}{{&sum.ClientLag, s.lag, ms}, {&sum.TTFT, s.ttft, ms}, {&sum.TPOT, s.tpot, ms}, {&sum.ITL, s.itl, ms}, {&sum.InterChunk, s.gaps, ms},
		{&sum.E2E, s.e2e, ms}, {&sum.RequestTPS, s.reqTPS, 1}, {&sum.DecodeTPS, s.decTPS, 1},
		{&sum.TTST, s.ttst, ms}, {&sum.PrefillTPS, s.prefillTPS, 1}} {
		withPercentiles(d.dist, d.h, d.unit, s.percentiles)
	}
}

// peak is the highest value of a rolling series over a window, or 0 (none)
// for a step shorter than two windows: there every window covers most of
// the step and its peak is the step's rate again, or by the edges' bins
// below it (a c=1 step's "peak" of 47.0 under its system TPS of 47.08).
func peak(pts []Point, window time.Duration, durationS float64) float64 {
	if len(pts) == 0 || durationS < 2*window.Seconds() {
		return 0
	}
	m := 0.0
	for _, p := range pts {
		m = math.Max(m, p.V)
	}
	return m
}
