// Package monitor shows a run (or real traffic) while it happens: a
// Prometheus exporter of records, and a measuring proxy in front of any
// OpenAI-compatible server. It is kept apart from the core packages, which
// do not depend on Prometheus's client library.
package monitor

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tpsbench/tpsbench/internal/httpserve"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

// Exporter turns records into Prometheus metrics named after the
// OpenTelemetry GenAI semantic conventions.
type Exporter struct {
	reg      *prometheus.Registry
	tokens   *prometheus.CounterVec
	requests *prometheus.CounterVec
	ttft     *prometheus.HistogramVec
	tpot     *prometheus.HistogramVec
	duration *prometheus.HistogramVec
	inFlight *prometheus.GaugeVec
	// the in-flight gauge each request was counted under: a record's
	// model is filled in after it is sent (the client reads it from the
	// request), so Observe's labels may differ from Sent's
	countedUnder sync.Map // *record.Record -> prometheus.Gauge
	models       modelLabels
	// records a proxy measured but could not write (the run's are fatal)
	recordsLost prometheus.Counter
	lastOutput  atomic.Pointer[labelledCounter]
	// every output token as it streams, by the second it came: the
	// rolling and cumulative TPS gauges
	streamed metrics.SecondBins
	scrapes  scrapes
}

// NewExporter makes an exporter with its own registry.
func NewExporter() *Exporter {
	lat := []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30}
	e := &Exporter{
		reg: prometheus.NewRegistry(),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gen_ai_client_token_usage",
			Help: "Tokens used by completed requests, by type (input, output)."}, []string{"gen_ai_token_type", "gen_ai_request_model", "step"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tpsbench_requests_total",
			Help: "Requests ended, by outcome (ok or a failure kind)."}, []string{"outcome", "gen_ai_request_model", "step"}),
		ttft: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gen_ai_server_time_to_first_token_seconds",
			Help: "Time to first token, measured by the client.", Buckets: lat}, []string{"gen_ai_request_model", "step"}),
		tpot: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gen_ai_server_time_per_output_token_seconds",
			Help:    "Time per output token after the first, measured by the client.",
			Buckets: []float64{0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 0.5}}, []string{"gen_ai_request_model", "step"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gen_ai_server_request_duration_seconds",
			Help: "Request duration to the last token, measured by the client.", Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128}}, []string{"gen_ai_request_model", "step"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tpsbench_requests_in_flight",
			Help: "Requests sent and not yet ended."}, []string{"gen_ai_request_model", "step"}),
	}
	e.recordsLost = prometheus.NewCounter(prometheus.CounterOpts{Name: "tpsbench_records_lost_total",
		Help: "Records that could not be written to the records file (a full disk); each was measured and counted above."})
	rolling := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tpsbench_output_tokens_per_second",
		Help: "Output tokens a second over the last 10 whole seconds, every chunk counted as it streamed."},
		func() float64 { return e.streamed.Rate(10, time.Now()) })
	cumulative := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tpsbench_output_tokens_per_second_cumulative",
		Help: "Output tokens streamed since the first, over the time since it."},
		func() float64 { return e.streamed.Cumulative(time.Now()) })
	e.reg.MustRegister(e.tokens, e.requests, e.ttft, e.tpot, e.duration, e.inFlight, e.recordsLost, rolling, cumulative)
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
// (and a rate over it) moves during long responses, not only at their end.
func (e *Exporter) Chunk(r *record.Record, tokens int) {
	if !r.Warmup {
		e.outputCounter(r).Add(float64(tokens))
		e.streamed.Add(r.T0+r.Last, tokens)
	}
}

// outputCounter is the output-token counter of r's labels. The last one
// looked up is kept: resolving labels on every chunk would cost more than
// the rest of reading it.
func (e *Exporter) outputCounter(r *record.Record) prometheus.Counter {
	if c := e.lastOutput.Load(); c != nil && c.model == r.Model && c.step == r.Step {
		return c.counter
	}
	model, step := e.labels(r)
	c := &labelledCounter{model: r.Model, step: r.Step, counter: e.tokens.WithLabelValues("output", model, step)}
	e.lastOutput.Store(c)
	return c.counter
}

// labelledCounter is a counter with the record fields it was looked up by.
type labelledCounter struct {
	model, step string
	counter     prometheus.Counter
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
	e.tokens.WithLabelValues("input", model, step).Add(float64(r.PromptTokens))
	if more := r.OutputTokens - r.Streamed; more > 0 {
		e.tokens.WithLabelValues("output", model, step).Add(float64(more))
	}
	e.ttft.WithLabelValues(model, step).Observe(r.TTFT().Seconds())
	if tpot, ok := r.TPOT(); ok {
		e.tpot.WithLabelValues(model, step).Observe(tpot.Seconds())
	}
	e.duration.WithLabelValues(model, step).Observe(r.E2E().Seconds())
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
