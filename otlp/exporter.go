// Package otlp sends a run to an OpenTelemetry collector over OTLP/HTTP,
// in the protocol's JSON encoding: a client span for each request, with
// its timings, HTTP phases and the GenAI semantic conventions'
// attributes, and the conventions' client metrics a point per model and
// step (the figures monitor's Prometheus exporter serves). A collector
// that fails or cannot be reached costs the run nothing but a warning.
package otlp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/record"
)

// Options configure an Exporter.
type Options struct {
	// URL is the collector: a host, host:port (port 4318 when none is
	// given) or an http(s) URL; /v1/traces and /v1/metrics are added to
	// its path, as OTEL_EXPORTER_OTLP_ENDPOINT's are.
	URL     string
	Headers http.Header // sent with every export (a collector's credentials)
	// Service is the resource's service.name; "tpsbench" when empty.
	Service string
	// Interval is how often the metrics go out while the run lasts, and
	// the spans gathered by then; 10 s when 0. Flush sends the rest.
	Interval time.Duration
	// Client sends the exports; a client of 10 s timeout when nil.
	Client *http.Client
}

// Endpoints resolves a collector's address as Options.URL takes it into
// the URLs the traces and the metrics go to.
func Endpoints(raw string) (traces, metrics string, err error) {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", "", fmt.Errorf("OTLP collector %q: want host, host:port or an http(s):// URL, e.g. http://127.0.0.1:4318", raw)
	}
	if u.Port() == "" && !strings.Contains(raw, "://") {
		u.Host = net.JoinHostPort(u.Hostname(), "4318")
	}
	u.RawQuery, u.Fragment = "", ""
	base := strings.TrimRight(u.String(), "/")
	return base + "/v1/traces", base + "/v1/metrics", nil
}

// maxPending bounds the spans gathered between exports: past it an
// export goes out at once.
const maxPending = 512

// maxHeld bounds the spans held while an export is under way (a slow
// collector has 10 s to answer): past it a span is counted as lost, so
// that a run's memory does not grow with the collector's delay.
const maxHeld = 16 * maxPending

// errBehind says spans were dropped while the collector was slow.
var errBehind = errors.New("the collector took spans more slowly than the run made them")

// Exporter is a tpsbench.Observer that exports what it sees: Start it,
// Flush it when the run ends (a Session does both).
type Exporter struct {
	opts            Options
	traces, metrics string
	started         time.Time

	mu      sync.Mutex
	pending []span
	series  map[seriesKey]*series
	lost    int   // spans not delivered
	failed  error // the first export that failed
	sent    int   // spans delivered

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	send sync.Mutex // one export at a time, in order
}

// New checks opts and returns an exporter; nothing is sent before Start.
func New(opts Options) (*Exporter, error) {
	traces, metrics, err := Endpoints(opts.URL)
	if err != nil {
		return nil, err
	}
	if opts.Service == "" {
		opts.Service = "tpsbench"
	}
	if opts.Interval <= 0 {
		opts.Interval = 10 * time.Second
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	return &Exporter{opts: opts, traces: traces, metrics: metrics, started: time.Now(), series: map[seriesKey]*series{},
		kick: make(chan struct{}, 1)}, nil
}

var _ tpsbench.Observer = (*Exporter)(nil)

func (*Exporter) StepBegan(int, *tpsbench.Step) {}
func (*Exporter) Sent(*record.Record)           {}
func (*Exporter) Chunk(*record.Record, int)     {}

// Done takes a finished request: its span, and its figures into its
// model and step's point. A warm-up request is left out, as from figures.
func (e *Exporter) Done(r *record.Record) {
	if r.Warmup {
		return
	}
	s := spanOf(r)
	e.mu.Lock()
	if len(e.pending) < maxHeld {
		e.pending = append(e.pending, s)
	} else {
		e.lost++
		if e.failed == nil {
			e.failed = errBehind
		}
	}
	k := seriesKey{model: r.Model, step: r.Step, op: operation(r.API)}
	ser := e.series[k]
	if ser == nil {
		if len(e.series) >= maxSeries {
			k.model = otherModels
			ser = e.series[k]
		}
		if ser == nil {
			ser = newSeries()
			e.series[k] = ser
		}
	}
	ser.add(r)
	full := len(e.pending) >= maxPending
	e.mu.Unlock()
	if full {
		select {
		case e.kick <- struct{}{}:
		default:
		}
	}
}

// Start begins exporting every Interval, and whenever maxPending spans
// wait.
func (e *Exporter) Start() error {
	e.stop, e.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(e.done)
		tick := time.NewTicker(e.opts.Interval)
		defer tick.Stop()
		for {
			select {
			case <-e.stop:
				return
			case <-tick.C:
				e.export(context.Background(), true)
			case <-e.kick:
				e.export(context.Background(), false)
			}
		}
	}()
	return nil
}

// Flush stops the periodic exports and sends what is left: the spans not
// yet sent and the metrics' final points.
func (e *Exporter) Flush() {
	if e.stop != nil {
		close(e.stop)
		<-e.done
		e.stop = nil
	}
	e.export(context.Background(), true)
}

// Err says what did not reach the collector, or nil when everything did.
func (e *Exporter) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failed == nil {
		return nil
	}
	return fmt.Errorf("%d of %d spans, and metrics, did not reach the OTLP collector: %w", e.lost, e.lost+e.sent, e.failed)
}

// export sends the pending spans and, with withMetrics, every point.
func (e *Exporter) export(ctx context.Context, withMetrics bool) {
	e.send.Lock()
	defer e.send.Unlock()
	e.mu.Lock()
	spans := e.pending
	e.pending = nil
	var ms []metric
	if withMetrics {
		ms = encodeMetrics(e.series, nanos(e.started.UnixNano()), nanos(time.Now().UnixNano()))
	}
	e.mu.Unlock()
	res := resource{Attributes: []keyValue{str("service.name", e.opts.Service), str("service.version", tpsbench.Version)}}
	sc := scope{Name: "github.com/tpsbench/tpsbench", Version: tpsbench.Version}
	if len(spans) > 0 {
		err := e.post(ctx, e.traces, traces{ResourceSpans: []resourceSpans{{Resource: res, ScopeSpans: []scopeSpans{{Scope: sc, Spans: spans}}}}})
		e.note(err, len(spans))
	}
	if len(ms) > 0 {
		err := e.post(ctx, e.metrics, metricsRequest{ResourceMetrics: []resourceMetrics{{Resource: res, ScopeMetrics: []scopeMetrics{{Scope: sc, Metrics: ms}}}}})
		e.note(err, 0)
	}
}

// note counts an export's spans as delivered or lost.
func (e *Exporter) note(err error, spans int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil {
		e.sent += spans
		return
	}
	e.lost += spans
	if e.failed == nil {
		e.failed = err
	}
}

// maxAnswer bounds what is read of a collector's answer.
const maxAnswer = 64 << 10

func (e *Exporter) post(ctx context.Context, to string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encoding an export: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, to, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("an export to %s: %w", to, err)
	}
	for k, vs := range e.opts.Headers {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.opts.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("POST %s: %w", to, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: HTTP %d %s", to, resp.StatusCode, strings.TrimSpace(strings.ToValidUTF8(string(answer), "?")))
	}
	// a collector that took part of an export says so in a success
	var partial struct {
		PartialSuccess struct {
			RejectedSpans      json.Number `json:"rejectedSpans"`
			RejectedDataPoints json.Number `json:"rejectedDataPoints"`
			ErrorMessage       string      `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if json.Unmarshal(answer, &partial) == nil {
		p := partial.PartialSuccess
		if n, _ := p.RejectedSpans.Int64(); n > 0 {
			return fmt.Errorf("POST %s: the collector rejected %d spans: %s", to, n, p.ErrorMessage)
		}
		if n, _ := p.RejectedDataPoints.Int64(); n > 0 {
			return fmt.Errorf("POST %s: the collector rejected %d data points: %s", to, n, p.ErrorMessage)
		}
	}
	return nil
}
