package otlp

import (
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/tpsbench/tpsbench/internal/latbuckets"
	"github.com/tpsbench/tpsbench/record"
)

// The client metrics of the GenAI conventions, with the bounds and the
// rules of monitor's Prometheus exporter (which names them with _ for .):
// a completed request's duration and token usage, the time to its first
// chunk when streamed, the time between its chunks; tpsbench's own HTTP
// phases and requests by outcome. Each is cumulative from the exporter's
// start, a point per model and step.
const (
	metricDuration = "gen_ai.client.operation.duration"
	metricUsage    = "gen_ai.client.token.usage"
	metricFirst    = "gen_ai.client.operation.time_to_first_chunk"
	metricChunk    = "gen_ai.client.operation.time_per_output_chunk"
	metricPhase    = "tpsbench.http.phase.duration"
	metricRequests = "tpsbench.requests"
	maxSeries      = 256 // model and step pairs; past it, records count under otherModels
	otherModels    = "(other models)"
)

// seriesKey names a point: a model, a step and the operation.
type seriesKey struct{ model, step, op string }

// series is a point's cumulative values.
type series struct {
	duration, first, chunk, input, output bins
	phases                                [len(record.HTTPPhaseNames)]bins
	outcomes                              map[string]int64
}

func newSeries() *series {
	s := &series{duration: newBins(latbuckets.Request()), first: newBins(latbuckets.TTFT()), chunk: newBins(latbuckets.TokenGap()),
		input: newBins(latbuckets.Tokens()), output: newBins(latbuckets.Tokens()), outcomes: map[string]int64{}}
	for i := range s.phases {
		s.phases[i] = newBins(latbuckets.Phase())
	}
	return s
}

// add counts a finished request.
func (s *series) add(r *record.Record) {
	if !r.OK() {
		s.outcomes[r.Error.Kind]++
		return
	}
	s.outcomes["ok"]++
	s.input.add(float64(r.PromptTokens))
	s.duration.add(r.E2E().Seconds())
	if times, ok := r.HTTPPhaseTimes(); ok {
		for i, ns := range times {
			s.phases[i].add(float64(ns) / 1e9)
		}
	}
	if r.Outputless() {
		return
	}
	s.output.add(float64(r.OutputTokens))
	if r.Stream && r.OutputTokens > 0 && r.First >= r.Sent { // a whole answer has no first chunk
		s.first.add(r.TTFT().Seconds())
	}
	if r.ChunksFolded == 0 {
		r.ChunkGaps(func(d time.Duration) { s.chunk.add(d.Seconds()) })
	}
}

// bins is an explicit-bounds histogram as OTLP carries one.
type bins struct {
	bounds   []float64
	counts   []int64 // len(bounds)+1: the last counts what is above every bound
	n        int64
	sum      float64
	min, max float64
}

func newBins(bounds []float64) bins {
	return bins{bounds: bounds, counts: make([]int64, len(bounds)+1)}
}

func (b *bins) add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	// a value on a bound is in the bucket it closes: (lower, upper]
	b.counts[sort.SearchFloat64s(b.bounds, v)]++
	if b.n == 0 || v < b.min {
		b.min = v
	}
	if b.n == 0 || v > b.max {
		b.max = v
	}
	b.n++
	b.sum += v
}

func (b *bins) point(attrs []keyValue, start, now string) histogramPoint {
	counts := make([]string, len(b.counts))
	for i, c := range b.counts {
		counts[i] = strconv.FormatInt(c, 10)
	}
	return histogramPoint{Attributes: attrs, Start: start, Time: now, Count: strconv.FormatInt(b.n, 10), Sum: b.sum,
		BucketCounts: counts, Bounds: b.bounds, Min: b.min, Max: b.max}
}

// encodeMetrics is every series' points, sorted by their keys so that an
// export reads the same twice.
func encodeMetrics(all map[seriesKey]*series, start, now string) []metric {
	keys := make([]seriesKey, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.model != b.model {
			return a.model < b.model
		}
		if a.step != b.step {
			return a.step < b.step
		}
		return a.op < b.op
	})
	hist := func(name, unit, help string) *metric {
		return &metric{Name: name, Unit: unit, Description: help, Histogram: &histogram{Temporality: aggregationCumulative}}
	}
	duration := hist(metricDuration, "s", "A request's duration, from its send to its last token, measured by the client.")
	usage := hist(metricUsage, "{token}", "Tokens a completed request used, by type (input, output).")
	first := hist(metricFirst, "s", "Time to the first output token, from the request's send, measured by the client.")
	chunk := hist(metricChunk, "s", "Time between a streamed chunk of output and the one before it, measured by the client.")
	phases := hist(metricPhase, "s", "Where a completed request's time went in the HTTP transport, by phase as k6 names them.")
	requests := &metric{Name: metricRequests, Unit: "{request}", Description: "Requests ended, by outcome (ok or a failure kind).",
		Sum: &sum{Temporality: aggregationCumulative, Monotonic: true}}
	for _, k := range keys {
		s := all[k]
		attrs := []keyValue{str("gen_ai.operation.name", k.op), str("gen_ai.request.model", k.model), str("tpsbench.step", k.step)}
		with := func(extra keyValue) []keyValue { return append(append([]keyValue(nil), attrs...), extra) }
		duration.Histogram.DataPoints = append(duration.Histogram.DataPoints, s.duration.point(attrs, start, now))
		usage.Histogram.DataPoints = append(usage.Histogram.DataPoints,
			s.input.point(with(str("gen_ai.token.type", "input")), start, now), s.output.point(with(str("gen_ai.token.type", "output")), start, now))
		if s.first.n > 0 {
			first.Histogram.DataPoints = append(first.Histogram.DataPoints, s.first.point(attrs, start, now))
		}
		if s.chunk.n > 0 {
			chunk.Histogram.DataPoints = append(chunk.Histogram.DataPoints, s.chunk.point(attrs, start, now))
		}
		for i := range s.phases {
			if s.phases[i].n > 0 {
				phases.Histogram.DataPoints = append(phases.Histogram.DataPoints, s.phases[i].point(with(str("tpsbench.http.phase", record.HTTPPhaseNames[i])), start, now))
			}
		}
		outcomes := make([]string, 0, len(s.outcomes))
		for o := range s.outcomes {
			outcomes = append(outcomes, o)
		}
		sort.Strings(outcomes)
		for _, o := range outcomes {
			requests.Sum.DataPoints = append(requests.Sum.DataPoints,
				numberPoint{Attributes: with(str("tpsbench.outcome", o)), Start: start, Time: now, AsInt: strconv.FormatInt(s.outcomes[o], 10)})
		}
	}
	var out []metric
	for _, m := range []*metric{duration, usage, first, chunk, phases, requests} {
		if (m.Histogram != nil && len(m.Histogram.DataPoints) > 0) || (m.Sum != nil && len(m.Sum.DataPoints) > 0) {
			out = append(out, *m)
		}
	}
	return out
}
