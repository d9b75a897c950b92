package otlp

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/tpsbench/tpsbench/record"
)

// receiver is an OTLP/HTTP collector that keeps what it is sent, decoded
// by the protocol's own definitions (its protobuf messages, from JSON as
// a collector decodes it): a field misnamed or mistyped fails the test.
type receiver struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics [][]*metricspb.Metric // each export's
	headers []http.Header
	status  int // answer with this, when set
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{t: t}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.headers = append(rc.headers, r.Header.Clone())
		if rc.status != 0 {
			w.WriteHeader(rc.status)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("content type %q", ct)
		}
		switch r.URL.Path {
		case "/otlp/v1/traces":
			var td tracepb.TracesData // ExportTraceServiceRequest's one field, as encoded
			if err := protojson.Unmarshal(hexIDs(t, body), &td); err != nil {
				t.Errorf("traces: %v\n%s", err, body)
			}
			for _, rs := range td.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					rc.spans = append(rc.spans, ss.Spans...)
				}
			}
		case "/otlp/v1/metrics":
			var md metricspb.MetricsData
			if err := protojson.Unmarshal(body, &md); err != nil {
				t.Errorf("metrics: %v\n%s", err, body)
			}
			var ms []*metricspb.Metric
			for _, rm := range md.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					ms = append(ms, sm.Metrics...)
				}
			}
			rc.metrics = append(rc.metrics, ms)
		default:
			t.Errorf("an export to %s", r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
	}))
	t.Cleanup(rc.Close)
	return rc
}

// hexIDs turns the trace and span ids of an OTLP/JSON body, which the
// protocol writes in hex, into the base64 of protobuf's JSON mapping,
// failing on an id that is not 16 or 8 bytes of hex.
func hexIDs(t *testing.T, body []byte) []byte {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("%v: %s", err, body)
		return body
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, inner := range x {
				if n := map[string]int{"traceId": 16, "spanId": 8}[k]; n > 0 {
					b, err := hex.DecodeString(fmt.Sprint(inner))
					if err != nil || len(b) != n {
						t.Errorf("%s %v: want %d bytes in hex", k, inner, n)
					}
					x[k] = base64.StdEncoding.EncodeToString(b)
					continue
				}
				walk(inner)
			}
		case []any:
			for _, inner := range x {
				walk(inner)
			}
		}
	}
	walk(v)
	out, _ := json.Marshal(v)
	return out
}

func attrs(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

const t0 = 1_700_000_000_000_000_000

// twoRequests: a streamed answer over a reused connection (sent at 10
// ms after its 1 ms upload, tokens at 40, 50 and 70 ms), and one failed
// by a 503 at 30 ms.
func twoRequests() (*record.Record, *record.Record) {
	ok := &record.Record{T0: t0, Model: "m", Step: "c=2", API: "chat", Stream: true, URL: "http://127.0.0.1:8000/v1/chat/completions",
		Sent: 10e6, First: 40e6, Last: 70e6, Done: 72e6, Upload: 1e6, PromptTokens: 12, OutputTokens: 3, MaxTokens: 3, Status: 200,
		Chunks: []record.Chunk{{At: 30e6, Tokens: 1}, {At: 40e6, Tokens: 1}, {At: 60e6, Tokens: 1}}, FinishReason: "length", ResponseID: "cmpl-1",
		HTTP: &record.HTTPPhases{Reused: true, Blocked: 5e3, Waiting: 29e6, Receiving: 33e6}}
	failed := &record.Record{T0: t0, Model: "m", Step: "c=2", API: "chat", Stream: true, Sent: 20e6, Done: 30e6, Status: 503,
		HTTP: &record.HTTPPhases{Connecting: 2e5, Waiting: 10e6}}
	failed.Fail(record.KindHTTPStatus, "HTTP 503 Service Unavailable")
	return ok, failed
}

// TestExportedSpans: each request a client span from its start (its
// send less its upload and setup) to its end, named for its operation and
// model, with the GenAI conventions' attributes, its first and last token
// as events, its HTTP phases, and a failure as an error status; a
// warm-up request is left out; the collector's headers are sent.
func TestExportedSpans(t *testing.T) {
	rc := newReceiver(t)
	e, err := New(Options{URL: rc.URL + "/otlp", Headers: http.Header{"Authorization": {"Bearer k"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	ok, failed := twoRequests()
	warm := &record.Record{T0: t0, Model: "m", Sent: 1, Done: 2, Warmup: true}
	for _, r := range []*record.Record{ok, failed, warm} {
		e.Done(r)
	}
	e.Flush()
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rc.spans) != 2 {
		t.Fatalf("%d spans, want 2", len(rc.spans))
	}
	s, f := rc.spans[0], rc.spans[1]
	if s.Name != "chat m" || s.Kind != tracepb.Span_SPAN_KIND_CLIENT || len(s.TraceId) != 16 || len(s.SpanId) != 8 || hex.EncodeToString(s.TraceId) == hex.EncodeToString(f.TraceId) {
		t.Errorf("span %q kind %v ids %x %x", s.Name, s.Kind, s.TraceId, s.SpanId)
	}
	if want := uint64(t0 + 10e6 - 1e6 - 5e3); s.StartTimeUnixNano != want || s.EndTimeUnixNano != t0+72e6 {
		t.Errorf("span from %d to %d, want %d to %d", s.StartTimeUnixNano, s.EndTimeUnixNano, want, uint64(t0+72e6))
	}
	if len(s.Events) != 2 || s.Events[0].Name != "gen_ai.first_token" || s.Events[0].TimeUnixNano != t0+40e6 || s.Events[1].TimeUnixNano != t0+70e6 {
		t.Errorf("events %v", s.Events)
	}
	a := attrs(s.Attributes)
	for k, want := range map[string]string{"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.response.id": "cmpl-1",
		"server.address": "127.0.0.1", "tpsbench.step": "c=2"} {
		if a[k].GetStringValue() != want {
			t.Errorf("%s = %v, want %q", k, a[k], want)
		}
	}
	for k, want := range map[string]int64{"gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 3, "gen_ai.request.max_tokens": 3,
		"tpsbench.ttft_ns": 30e6, "tpsbench.tpot_ns": 15e6, "tpsbench.http.blocked_ns": 5e3, "tpsbench.http.sending_ns": 1e6,
		"tpsbench.http.waiting_ns": 29e6, "tpsbench.http.receiving_ns": 33e6, "http.response.status_code": 200} {
		if a[k].GetIntValue() != want {
			t.Errorf("%s = %v, want %d", k, a[k], want)
		}
	}
	if !a["tpsbench.http.connection_reused"].GetBoolValue() || a["gen_ai.response.finish_reasons"].GetArrayValue().GetValues()[0].GetStringValue() != "length" {
		t.Errorf("reused %v, finish reasons %v", a["tpsbench.http.connection_reused"], a["gen_ai.response.finish_reasons"])
	}
	if s.Status.GetCode() != tracepb.Status_STATUS_CODE_OK || f.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR ||
		!strings.Contains(f.Status.GetMessage(), "503") || attrs(f.Attributes)["error.type"].GetStringValue() != record.KindHTTPStatus {
		t.Errorf("status %v and %v", s.Status, f.Status)
	}
	if len(f.Events) != 0 || f.StartTimeUnixNano != t0+20e6-2e5 {
		t.Errorf("the failed span: events %v, start %d", f.Events, f.StartTimeUnixNano)
	}
	for _, h := range rc.headers {
		if h.Get("Authorization") != "Bearer k" {
			t.Errorf("headers %v", h)
		}
	}
}

// TestExportedMetrics: the GenAI conventions' client metrics of the
// completed request, cumulative, a point per model and step: its duration
// from send to last token (60 ms) in the bucket that holds it, its tokens by
// type, its time to first chunk (30 ms) and its chunks' gaps (10 and 20
// ms), its HTTP phases; requests by outcome, the failed one too.
func TestExportedMetrics(t *testing.T) {
	rc := newReceiver(t)
	e, err := New(Options{URL: rc.URL + "/otlp/"})
	if err != nil {
		t.Fatal(err)
	}
	ok, failed := twoRequests()
	e.Done(ok)
	e.Done(failed)
	e.Flush()
	if err := e.Err(); err != nil || len(rc.metrics) != 1 {
		t.Fatalf("%v, %d exports", err, len(rc.metrics))
	}
	byName := map[string]*metricspb.Metric{}
	for _, m := range rc.metrics[0] {
		byName[m.Name] = m
	}
	one := func(name string, count uint64, sum float64) *metricspb.HistogramDataPoint {
		t.Helper()
		m := byName[name]
		if m == nil || len(m.GetHistogram().GetDataPoints()) == 0 {
			t.Fatalf("no %s in %v", name, byName)
		}
		h := m.GetHistogram()
		p := h.DataPoints[0]
		var inBuckets uint64
		for _, c := range p.BucketCounts {
			inBuckets += c
		}
		if h.AggregationTemporality != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE ||
			p.Count != count || inBuckets != count || len(p.BucketCounts) != len(p.ExplicitBounds)+1 || abs(p.GetSum()-sum) > 1e-9 {
			t.Errorf("%s: %d samples (%d in buckets) summing to %v, want %d summing to %v", name, p.Count, inBuckets, p.GetSum(), count, sum)
		}
		if a := attrs(p.Attributes); a["gen_ai.request.model"].GetStringValue() != "m" || a["tpsbench.step"].GetStringValue() != "c=2" {
			t.Errorf("%s: attributes %v", name, p.Attributes)
		}
		return p
	}
	d := one(metricDuration, 1, 0.06)
	for i, b := range d.ExplicitBounds { // 60 ms lies in (0.05, 0.1]
		if d.BucketCounts[i] == 1 && !(b == 0.1 && d.ExplicitBounds[i-1] == 0.05) {
			t.Errorf("60 ms counted in the bucket up to %v", b)
		}
	}
	one(metricFirst, 1, 0.03)
	one(metricChunk, 2, 0.03)
	usage := byName[metricUsage].GetHistogram().GetDataPoints()
	if len(usage) != 2 || usage[0].GetSum() != 12 || usage[1].GetSum() != 3 || attrs(usage[1].Attributes)["gen_ai.token.type"].GetStringValue() != "output" {
		t.Errorf("token usage %v", usage)
	}
	phases := map[string]float64{}
	for _, p := range byName[metricPhase].GetHistogram().GetDataPoints() {
		phases[attrs(p.Attributes)["tpsbench.http.phase"].GetStringValue()] = p.GetSum()
	}
	if len(phases) != len(record.HTTPPhaseNames) || phases["waiting"] != 0.029 || phases["sending"] != 0.001 {
		t.Errorf("phases %v", phases)
	}
	outcomes := map[string]int64{}
	for _, p := range byName[metricRequests].GetSum().GetDataPoints() {
		outcomes[attrs(p.Attributes)["tpsbench.outcome"].GetStringValue()] = p.GetAsInt()
	}
	if !byName[metricRequests].GetSum().IsMonotonic || outcomes["ok"] != 1 || outcomes[record.KindHTTPStatus] != 1 {
		t.Errorf("requests %v", outcomes)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestCollectorFailures: a collector that answers with an error, or that
// is not there, is said with what was lost; a bad address is refused.
func TestCollectorFailures(t *testing.T) {
	rc := newReceiver(t)
	rc.status = http.StatusServiceUnavailable
	e, _ := New(Options{URL: rc.URL})
	ok, _ := twoRequests()
	e.Done(ok)
	e.Flush()
	if err := e.Err(); err == nil || !strings.Contains(err.Error(), "1 of 1 spans") || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("a collector answering 503: %v", err)
	}
	gone, _ := New(Options{URL: "127.0.0.1:1"})
	gone.Done(ok)
	gone.Flush()
	if err := gone.Err(); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/v1/traces") {
		t.Errorf("no collector: %v", err)
	}
	for _, bad := range []string{"", "ftp://h", "http://", "::"} {
		if _, err := New(Options{URL: bad}); err == nil {
			t.Errorf("collector %q taken", bad)
		}
	}
	for in, want := range map[string]string{"collector": "http://collector:4318/v1/traces", "h:9": "http://h:9/v1/traces",
		"https://h/otlp/": "https://h/otlp/v1/traces", "http://h": "http://h/v1/traces"} {
		if got, _, err := Endpoints(in); err != nil || got != want {
			t.Errorf("Endpoints(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestSlowCollectorBoundsMemory: while an export waits on a collector,
// at most maxHeld spans are held; the rest are counted as lost and said,
// and what was held is sent once the collector answers.
func TestSlowCollectorBoundsMemory(t *testing.T) {
	arrived, release := make(chan struct{}, 64), make(chan struct{})
	var spans atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		spans.Add(int64(strings.Count(string(body), `"traceId"`)))
		arrived <- struct{}{}
		<-release
	}))
	defer srv.Close()
	e, _ := New(Options{URL: srv.URL, Interval: time.Hour})
	e.Start()
	ok, _ := twoRequests()
	for range maxPending {
		e.Done(ok)
	}
	<-arrived // the first export is under way, and held
	for range maxHeld + 10 {
		e.Done(ok)
	}
	e.mu.Lock()
	held := len(e.pending)
	e.mu.Unlock()
	close(release)
	e.Flush()
	if held != maxHeld {
		t.Errorf("%d spans held during a slow export, want %d", held, maxHeld)
	}
	err := e.Err()
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("10 of %d spans", maxPending+maxHeld+10)) || !errors.Is(err, errBehind) {
		t.Errorf("error %v", err)
	}
	if got := spans.Load(); got != int64(maxPending+maxHeld) {
		t.Errorf("%d spans reached the collector, want %d", got, maxPending+maxHeld)
	}
}
