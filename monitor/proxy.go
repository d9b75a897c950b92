package monitor

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/httpserve"
	"github.com/tpsbench/tpsbench/record"
)

// Proxy sits in front of an OpenAI-compatible server (or Ollama), passes
// every request and every streamed chunk through unchanged and at once
// (flushed chunk by chunk), and measures each generation request as the
// client would: a record per request, to the exporter and a records file.
// Headers, Authorization included, pass through and are never recorded.
type Proxy struct {
	// APIKey, when set, is required from clients as a bearer token or an
	// x-api-key header (compared in constant time); it is checked, then
	// passed on.
	APIKey string
	// Log, when set, is told when records cannot be written and when
	// writing resumes.
	Log io.Writer
	// Tokenizer counts the text of responses whose server reports no
	// usage; without one, whole (non-streamed) responses are counted with
	// Fallback, since one chunk says nothing of their length.
	Tokenizer, Fallback client.TextCounter
	// RecordPrompts keeps each request's prompt (its messages or prompt
	// as sent) in its record, so that a replay sends it again; without
	// it, records hold only the prompt's fingerprint.
	RecordPrompts bool
	// BodyBudget bounds the bytes of request bodies held at once (each
	// measured request's body is held until its answer ends, and costs
	// about 2.5 times its size in memory); a request past it is answered
	// 503. 0 is DefaultBodyBudget.
	BodyBudget  int64
	held        atomic.Int64 // bytes of bodies held (or reserved) now
	fingerprint fingerprinter
	upstream    *url.URL
	rp          *httputil.ReverseProxy
	clock       *record.Clock
	exporter    *Exporter
	records     RecordSink
	failing     atomic.Bool // the last record could not be written
	id          string      // marks the requests it sends (loopHeader)
	mu          sync.Mutex
	seq         int
}

// RecordSink takes the proxy's records: a *record.FileWriter (whole lines,
// undone on failure), or a *record.Writer, flushed after each record.
type RecordSink interface {
	Write(*record.Record) error
}

// ErrUpstream is NewProxy's refusal of an upstream that is not a server URL.
var ErrUpstream = errors.New("want an http:// or https:// URL with a host")

// NewProxy proxies to upstream; exporter and records may be nil.
func NewProxy(upstream string, exporter *Exporter, records RecordSink) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("upstream URL: %w", ErrUpstream)
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id) // crypto/rand.Read never fails on supported platforms
	p := &Proxy{upstream: u, clock: record.NewClock(), exporter: exporter, records: records, fingerprint: newFingerprinter(), id: hex.EncodeToString(id)}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = u.Host
			r.Out.Header.Add(loopHeader, p.id)
			if r.In.Context().Value(recKey{}) != nil {
				// measured responses must come uncompressed to be read
				r.Out.Header.Del("Accept-Encoding")
			}
		},
		FlushInterval: -1, // every write goes to the client at once
		Transport:     measuringTransport{base: upstreamTransport()},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			msg, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "upstream: " + upstreamError(err), "type": "proxy_error", "code": 502}})
			w.Write(msg)
		},
	}
	return p, nil
}

// upstreamError describes a failure without the upstream URL's query.
func upstreamError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}

// maxRequestBody bounds what the proxy reads of a request to learn its
// model and stream flag; the body passes on unchanged.
const maxRequestBody = 16 << 20

// DefaultBodyBudget is the bodies a proxy holds at once unless told
// otherwise: 16 bodies of the largest size, far more of real ones. (30
// bodies of 15 MB held 1.15 GB without a bound.)
const DefaultBodyBudget = 16 * maxRequestBody

// maxModelName bounds a model name kept in a record.
const maxModelName = 256

// authorized checks the bearer key, when one is set, answering 401 if it
// is missing or wrong.
func (p *Proxy) authorized(w http.ResponseWriter, r *http.Request) bool {
	// a bearer token, or Anthropic's x-api-key from its clients
	apiKey := r.Header.Get("x-api-key")
	if p.APIKey == "" || httpserve.BearerOK(r, p.APIKey) || apiKey != "" && subtle.ConstantTimeCompare([]byte(apiKey), []byte(p.APIKey)) == 1 {
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	w.Write([]byte(`{"error":{"message":"a valid API key is required (Authorization: Bearer ..., or x-api-key)","type":"authentication_error","code":401}}`))
	return false
}

// loopHeader carries the id of each tpsbench proxy a request passed
// through: a proxy pointed at its own address (or at a chain that leads
// back to it) sees its id come back and refuses, where it once proxied
// to itself until 10,000 nested requests were recorded.
const loopHeader = "X-Tpsbench-Proxy"

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if slices.Contains(r.Header.Values(loopHeader), p.id) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusLoopDetected)
		w.Write([]byte(`{"error":{"message":"the proxy's upstream leads back to the proxy itself: point --upstream at the server","type":"proxy_loop","code":508}}`))
		return
	}
	if !p.authorized(w, r) {
		return
	}
	if r.Method != http.MethodPost || !client.Measured(r.URL.Path) {
		p.rp.ServeHTTP(w, r)
		return
	}
	// the body's room is taken before it is read: its length when the
	// client says it, else the most a body may be
	reserved := r.ContentLength
	if reserved < 0 || reserved > maxRequestBody {
		reserved = maxRequestBody
	}
	budget := p.BodyBudget
	if budget <= 0 {
		budget = DefaultBodyBudget
	}
	// (one body alone always passes, whatever its size)
	if now := p.held.Add(reserved); now > budget && now != reserved {
		p.held.Add(-reserved)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":{"message":"the proxy holds as many request bodies as it may at once; try again shortly","type":"proxy_busy","code":503}}`))
		return
	}
	body, err := httpserve.ReadBody(w, r, maxRequestBody)
	if err != nil {
		p.held.Add(-reserved)
		http.Error(w, `{"error":{"message":"request body unreadable or over 16 MiB","type":"proxy_error"}}`, http.StatusBadRequest)
		return
	}
	p.held.Add(int64(len(body)) - reserved)
	defer p.held.Add(-int64(len(body)))
	r.Body = io.NopCloser(bytes.NewReader(body))
	// The body is held, so the upstream transport may send it again on
	// a fresh connection when a kept-alive one was closed before a byte
	// of answer came back (llama.cpp's server closes each after its
	// answer): an idempotency key with no value marks it so and is not
	// sent. A client's own key is passed on as it is.
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	if _, ok := r.Header["Idempotency-Key"]; !ok {
		r.Header["Idempotency-Key"] = nil
	}
	req, _ := client.ReadProxied(r.URL.Path, body)
	api, stream := req.API, req.Stream
	p.mu.Lock()
	seq := p.seq
	p.seq++
	p.mu.Unlock()
	// a client's model name is theirs to choose: bounded before it is kept
	rec := &record.Record{V: record.SchemaVersion, Run: "proxy", Step: "proxy", Seq: seq, Model: httpserve.Shorten(req.Model, maxModelName),
		URL: client.Redact(p.upstream.String() + r.URL.Path), API: api, Stream: stream, MaxTokens: req.MaxTokens, Inputs: req.Inputs, T0: p.clock.T0()}
	if req.AudioSeconds > 0 {
		rec.Audios, rec.AudioSeconds = 1, req.AudioSeconds
	}
	rec.Scheduled = p.clock.Now()
	if p.records != nil {
		if raw := req.Prompt; raw != nil {
			rec.Prefix = p.fingerprint.prefix(raw)
			if p.RecordPrompts {
				rec.RequestPrompt = raw
			}
		}
	}
	m := &measure{ctx: r.Context(), rec: rec, api: api, stream: stream, proxy: p}
	ctx := context.WithValue(r.Context(), recKey{}, m)
	if p.exporter != nil {
		p.exporter.Sent(rec)
	}
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

type recKey struct{}

// measure follows one request through the transport.
type measure struct {
	ctx    context.Context
	rec    *record.Record
	api    string
	stream bool
	proxy  *Proxy
	once   sync.Once
	// arrival stamps upstream reads with the kernel's receive time
	arrival atomic.Pointer[func() time.Time]
}

func (m *measure) done() {
	m.once.Do(func() {
		p := m.proxy
		if p.records != nil {
			p.keep(m.rec)
		}
		if p.exporter != nil {
			p.exporter.Observe(m.rec)
		}
	})
}

// counter is the tokenizer for a response without usage: the one set, or
// for a whole response the fallback.
func (p *Proxy) counter(stream bool) client.TextCounter {
	if p.Tokenizer.Count != nil || stream {
		return p.Tokenizer
	}
	return p.Fallback
}

// chunk counts a chunk's tokens on the exporter as it passes.
func (p *Proxy) chunk(r *record.Record, tokens int) {
	if p.exporter != nil {
		p.exporter.Chunk(r, tokens)
	}
}

// keep writes a record; a failure (a full disk) is counted, and told once
// until writing succeeds again, so that the log is not flooded.
func (p *Proxy) keep(r *record.Record) {
	err := p.records.Write(r)
	if f, ok := p.records.(interface{ Flush() error }); ok && err == nil {
		err = f.Flush()
	}
	if err != nil {
		if p.exporter != nil {
			p.exporter.recordsLost.Inc()
		}
		if !p.failing.Swap(true) && p.Log != nil {
			fmt.Fprintf(p.Log, "tpsbench proxy: %v; records are lost until writing succeeds (tpsbench_records_lost_total counts them)\n", err)
		}
		return
	}
	if p.failing.Swap(false) && p.Log != nil {
		fmt.Fprintln(p.Log, "tpsbench proxy: writing records again")
	}
}

// upstreamTransport is http.DefaultTransport whose connections know when
// their bytes arrived, so a busy proxy still stamps chunks truly, and
// which keeps as many idle connections as real traffic had in flight
// (the default two a host made every wave of concurrent requests open
// new connections, and handshakes, upstream).
func upstreamTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = client.DialStamped
	tr.MaxIdleConns = maxIdleUpstream
	tr.MaxIdleConnsPerHost = maxIdleUpstream
	return tr
}

const maxIdleUpstream = 1024

// Transport wraps the proxy's upstream transport to time requests and
// measure responses as their bytes pass.
type measuringTransport struct{ base http.RoundTripper }

func (t measuringTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	m, _ := r.Context().Value(recKey{}).(*measure)
	if m == nil {
		return t.base.RoundTrip(r)
	}
	rec, clock := m.rec, m.proxy.clock
	conns := 0
	r = r.WithContext(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			// called on RoundTrip's goroutine, once an attempt
			if conns++; conns > 1 {
				rec.Retries, rec.Sent = conns-1, clock.Now()
			}
			if f := client.ArrivalOf(info.Conn); f != nil {
				m.arrival.Store(&f)
			}
		},
	}))
	if r.GetBody != nil {
		// the held body itself rather than the reverse proxy's wrapper
		// of it: headers and body then leave in one write, so a request
		// on a connection the upstream has closed fails before a byte
		// is written and the transport sends it again (ServeHTTP)
		if body, err := r.GetBody(); err == nil {
			r.Body = body
		}
	}
	rec.Sent = clock.Now()
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		rec.Done = clock.Now()
		kind := record.KindConnect
		var ne net.Error
		switch {
		case errors.Is(r.Context().Err(), context.Canceled):
			kind = record.KindCanceled
		case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
			kind = record.KindTimeout
		}
		rec.Fail(kind, upstreamError(err))
		m.done()
		return nil, err
	}
	rec.Status = resp.StatusCode
	if resp.ProtoMajor != 1 {
		// HTTP/2 interleaves streams on one connection: its last read may
		// be another response's, so this one is stamped as it is read
		m.arrival.Store(nil)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		rec.Done = clock.Now()
		rec.Fail(record.KindHTTPStatus, "HTTP "+resp.Status)
		m.done()
		return resp, nil
	}
	// a copy: the reverse proxy edits the response's headers as the tap reads
	resp.Body = newTap(resp.Body, m, http.Header{"Content-Type": resp.Header.Values("Content-Type"), "Content-Encoding": resp.Header.Values("Content-Encoding")})
	return resp, nil
}

// Serve runs the proxy on addr, with /metrics from its exporter when it
// has one (requests to that path are not proxied).
func (p *Proxy) Serve(addr string) (stop func(), url string, err error) {
	mux := http.NewServeMux()
	if p.exporter != nil {
		metrics := p.exporter.Handler()
		// behind the key like every other route, as serve's /metrics is
		mux.Handle("/metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p.authorized(w, r) {
				metrics.ServeHTTP(w, r)
			}
		}))
	}
	mux.Handle("/", p)
	return serve(addr, mux, 0) // streams still passing through end at once
}
