// Package monitor shows a run (or real traffic) while it happens: a
// Prometheus exporter of records, and a measuring proxy in front of any
// OpenAI-compatible server. It is kept apart from the core packages, which
// do not depend on Prometheus's client library.
package monitor

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tpsbench/tpsbench/internal/httpserve"
	"github.com/tpsbench/tpsbench/internal/latbuckets"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

// Exporter turns records into Prometheus metrics: the client-side ones
// of OpenTelemetry's GenAI semantic conventions (gen_ai.client.token.usage,
// gen_ai.client.operation.duration, .time_to_first_chunk and
// .time_per_output_chunk), and tpsbench's own under tpsbench_.
type Exporter struct {
	reg      *prometheus.Registry
	usage    *prometheus.HistogramVec // tokens a request, by type
	output   *prometheus.CounterVec   // output tokens as they stream
	requests *prometheus.CounterVec
	ttfc     *prometheus.HistogramVec
	chunkGap *prometheus.HistogramVec
	tpot     *prometheus.HistogramVec
	duration *prometheus.HistogramVec
	inFlight *prometheus.GaugeVec
	inputs   *prometheus.CounterVec   // of requests that generate nothing (embeddings, rerank)
	audio    *prometheus.CounterVec   // seconds of audio processed
	phases   *prometheus.HistogramVec // HTTP phases of completed requests, by k6's name
	conns    *prometheus.CounterVec   // completed requests over HTTP, by whether their connection was reused
	// the in-flight gauge each request was counted under: a record's
	// model is filled in after it is sent (the client reads it from the
	// request), so Observe's labels may differ from Sent's
	countedUnder sync.Map // *record.Record -> prometheus.Gauge
	models       modelLabels
	// records a proxy measured but could not write (the run's are fatal)
	recordsLost prometheus.Counter
	lastLabels  atomic.Pointer[chunkSeries]
	// every output token as it streams, by the second it came: the
	// rolling and cumulative TPS gauges
	streamed metrics.SecondBins
	scrapes  scrapes
}

// NewExporter makes an exporter with its own registry.
func NewExporter() *Exporter {
	by := []string{"gen_ai_request_model", "step"}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, append(labels, by...))
	}
	e := &Exporter{
		reg: prometheus.NewRegistry(),
		usage: histogram("gen_ai_client_token_usage", "Tokens a completed request used, by type (input, output).",
			latbuckets.Tokens(), "gen_ai_token_type"),
		output: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tpsbench_output_tokens_total",
			Help: "Output tokens, counted as each chunk streams (a rate over it is the system TPS)."}, by),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tpsbench_requests_total",
			Help: "Requests ended, by outcome (ok or a failure kind)."}, append([]string{"outcome"}, by...)),
		ttfc: histogram("gen_ai_client_operation_time_to_first_chunk_seconds",
			"Time to the first output token, from the request's send, measured by the client.", latbuckets.TTFT()),
		chunkGap: histogram("gen_ai_client_operation_time_per_output_chunk_seconds",
			"Time between a streamed chunk of output and the one before it, measured by the client.", latbuckets.TokenGap()),
		tpot: histogram("tpsbench_time_per_output_token_seconds",
			"A request's time per output token after the first (1 / its decode TPS), measured by the client.", latbuckets.TokenGap()),
		duration: histogram("gen_ai_client_operation_duration_seconds",
			"A request's duration, from its send to its last token, measured by the client.", latbuckets.Request()),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tpsbench_requests_in_flight",
			Help: "Requests sent and not yet ended."}, by),
		inputs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tpsbench_inputs_total",
			Help: "Inputs of completed requests that generate nothing (embeddings' texts, rerank's documents); a rate over it is inputs/s."}, by),
		audio: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tpsbench_audio_seconds_total",
			Help: "Seconds of audio of known length the completed requests sent (transcribed, or in chat); a rate over it is audio seconds a second."}, by),
		phases: histogram("tpsbench_http_req_seconds",
			"Where a completed request's time went in the HTTP transport, by phase as k6 names them (blocked, dns, connecting, tls_handshaking, sending, waiting, receiving).",
			latbuckets.Phase(), "phase"),
		conns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tpsbench_http_requests_total",
			Help: "Completed requests over HTTP, by whether they went on a connection not dialled for them (reused)."}, append([]string{"reused"}, by...)),
	}
	e.recordsLost = prometheus.NewCounter(prometheus.CounterOpts{Name: "tpsbench_records_lost_total",
		Help: "Records that could not be written to the records file (a full disk); each was measured and counted above."})
	rolling := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tpsbench_output_tokens_per_second",
		Help: "Output tokens a second over the last 10 whole seconds, every chunk counted as it streamed."},
		func() float64 { return e.streamed.Rate(10, time.Now()) })
	cumulative := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tpsbench_output_tokens_per_second_cumulative",
		Help: "Output tokens streamed since the first, over the time since it."},
		func() float64 { return e.streamed.Cumulative(time.Now()) })
	e.reg.MustRegister(e.usage, e.output, e.requests, e.ttfc, e.chunkGap, e.tpot, e.duration, e.inFlight, e.inputs, e.audio, e.phases, e.conns, e.recordsLost, rolling, cumulative)
	return e
}

// Handler serves the metrics.
func (e *Exporter) Handler() http.Handler { return promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{}) }

// Sent counts a request going out.
func (e *Exporter) Sent(r *record.Record) {
	if !r.Warmup {
		g := e.inFlight.WithLabelValues(e.labels(r))
		g.Inc()
		e.countedUnder.Store(r, g)
	}
}

// labels are a record's model and step labels.
func (e *Exporter) labels(r *record.Record) (model, step string) {
	return e.models.of(r.Model), cleanLabel(r.Step)
}

// Chunk counts a chunk's output tokens as it streams, so the token counter
// (and a rate over it) moves during long responses, not only at their end,
// and times it from the chunk before.
func (e *Exporter) Chunk(r *record.Record, tokens int) {
	if r.Warmup {
		return
	}
	series := e.chunkSeries(r)
	series.output.Add(float64(tokens))
	e.streamed.Add(r.T0+r.Last, tokens)
	if n := len(r.Chunks); n >= 2 && r.ChunksFolded == 0 {
		series.gap.Observe(float64(r.Chunks[n-1].At-r.Chunks[n-2].At) / 1e9)
	}
}

// chunkSeries are the series of r's labels a chunk adds to. The last ones
// looked up are kept: resolving labels on every chunk would cost more
// than the rest of reading it.
func (e *Exporter) chunkSeries(r *record.Record) *chunkSeries {
	if c := e.lastLabels.Load(); c != nil && c.model == r.Model && c.step == r.Step {
		return c
	}
	model, step := e.labels(r)
	c := &chunkSeries{model: r.Model, step: r.Step, output: e.output.WithLabelValues(model, step), gap: e.chunkGap.WithLabelValues(model, step)}
	e.lastLabels.Store(c)
	return c
}

// chunkSeries are a label set's series with the record fields they were
// looked up by.
type chunkSeries struct {
	model, step string
	output      prometheus.Counter
	gap         prometheus.Observer
}

// Observe counts a finished request. Failures count by kind and stay out
// of the latency histograms. Output tokens its chunks counted as they came
// are not counted again: the final count adds only what they missed (a
// counter cannot go down, so a count below the chunks' stays theirs).
func (e *Exporter) Observe(r *record.Record) {
	if r.Warmup {
		return
	}
	if g, ok := e.countedUnder.LoadAndDelete(r); ok {
		g.(prometheus.Gauge).Dec()
	}
	model, step := e.labels(r)
	if !r.OK() {
		e.requests.WithLabelValues(cleanLabel(r.Error.Kind), model, step).Inc()
		return
	}
	e.requests.WithLabelValues("ok", model, step).Inc()
	e.observePhases(r, model, step)
	e.usage.WithLabelValues("input", model, step).Observe(float64(r.PromptTokens))
	if r.AudioSeconds > 0 {
		e.audio.WithLabelValues(model, step).Add(r.AudioSeconds)
	}
	if r.Outputless() { // no output to count or time: its inputs and duration
		e.inputs.WithLabelValues(model, step).Add(float64(r.Inputs))
		e.duration.WithLabelValues(model, step).Observe(r.E2E().Seconds())
		return
	}
	e.usage.WithLabelValues("output", model, step).Observe(float64(r.OutputTokens))
	if more := r.OutputTokens - r.Streamed; more > 0 {
		e.output.WithLabelValues(model, step).Add(float64(more))
	}
	if r.Stream { // as OpenTelemetry asks: a whole response has no first chunk
		e.ttfc.WithLabelValues(model, step).Observe(r.TTFT().Seconds())
	}
	if tpot, ok := r.TPOT(); ok {
		e.tpot.WithLabelValues(model, step).Observe(tpot.Seconds())
	}
	e.duration.WithLabelValues(model, step).Observe(r.E2E().Seconds())
}

// observePhases adds a completed request's HTTP phases, when it went
// over HTTP.
func (e *Exporter) observePhases(r *record.Record, model, step string) {
	times, ok := r.HTTPPhaseTimes()
	if !ok {
		return
	}
	e.conns.WithLabelValues(strconv.FormatBool(r.HTTP.Reused), model, step).Inc()
	for i, name := range record.HTTPPhaseNames {
		e.phases.WithLabelValues(name, model, step).Observe(float64(times[i]) / 1e9)
	}
}

// Serve listens on addr and serves /metrics until the returned function
// is called.
func (e *Exporter) Serve(addr string) (stop func(), url string, err error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", e.scrapes.wrap(e.Handler()))
	return serve(addr, mux, time.Second)
}

// serve serves h on addr until the returned function is called, which
// lets answers being written finish for up to grace (a final scrape cut
// mid-body would be lost as surely as one never served).
func serve(addr string, h http.Handler, grace time.Duration) (func(), string, error) {
	ln, err := httpserve.Listen(addr)
	if err != nil {
		return nil, "", err
	}
	srv := httpserve.Server(h)
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
	}
	return stop, "http://" + ln.Addr().String(), nil
}
