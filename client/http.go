package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// HTTPConfig configures a client of an LLM server.
type HTTPConfig struct {
	URL         string // base URL (http://host:8000, http://host:8000/v1) or a full endpoint URL
	API         string // one of APIs (APIChat when empty); a full endpoint URL decides it
	Stream      bool
	APIKey      string // sent as the API sends it (a bearer token, Anthropic's x-api-key); never recorded or printed
	Headers     http.Header
	Timeout     time.Duration // per request, 0 for none
	IgnoreEOS   bool          // send ignore_eos: true (vLLM, SGLang and the engine honour it)
	Temperature *float64
	Sampling    Sampling       // top_p and the like, each sent when set
	Extra       map[string]any // more body fields, sent as given, over the API's own
	Concurrency int            // sizes the connection pool
	TLS         *tls.Config    // how an https server is trusted (TLSOptions.Config); nil: the system's roots
	Clock       *record.Clock
	OnToken     TokenFunc
	// Tokenizer, when set, counts the generated text of a response whose
	// server reports no usage (token source "tokenizer").
	Tokenizer TextCounter
}

// TextCounter is a client-side tokenizer: it counts the generated text of
// responses without usage; Name is recorded with the count.
type TextCounter struct {
	Name  string
	Count func(text string) int
}

// HTTP is a client of an LLM server over HTTP, in one of the APIs
// (HTTPConfig.API).
type HTTP struct {
	cfg      HTTPConfig
	endpoint string // the URL requests go to
	shown    string // endpoint as recorded: no credentials, no query
	http     *http.Client
	h1       *h1         // the client's own HTTP/1.1, where it serves (h1.go); nil: http
	ready    *readyConns // connections opened before a step (OpenConnections)
}

// NewHTTP checks cfg and returns a client.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	if cfg.Clock == nil {
		cfg.Clock = record.NewClock()
	}
	endpoint, api, err := Endpoint(cfg.URL, cfg.API)
	if err != nil {
		return nil, err
	}
	cfg.API = api
	if protocolOf(api).outputless {
		cfg.Stream = false // it answers whole
	}
	if p := protocolOf(api); !cfg.Stream && p.wholePath != "" {
		endpoint = strings.TrimSuffix(endpoint, p.path) + p.wholePath // TGI answers whole at /generate
	}
	if err := checkHeaders(cfg.Headers); err != nil {
		return nil, err
	}
	pool := cfg.Concurrency
	if pool < 1 {
		pool = 1
	}
	ready := &readyConns{addr: dialAddr(endpoint)}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         ready.dial,
		MaxIdleConns:        pool + 16,
		MaxIdleConnsPerHost: pool + 16, // a pool smaller than the concurrency would serialize streams
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // gzip would buffer the stream and blur arrival times
		ReadBufferSize:      64 << 10,
		WriteBufferSize:     64 << 10,
		ForceAttemptHTTP2:   false,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1: one stream a connection
		TLSClientConfig:     cfg.TLS.Clone(),
	}
	return &HTTP{
		cfg:      cfg,
		endpoint: endpoint,
		shown:    Redact(endpoint),
		ready:    ready,
		h1:       newH1(endpoint, ready, requestHeaders(&cfg), pool+16),
		http:     &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}, nil
}

// ErrURL and ErrAPI are what Endpoint refuses: a server URL that is not
// one, an API it does not know. The URL is never echoed: a mistyped one
// may hold a credential.
var (
	ErrURL = errors.New("want an http:// or https:// URL with a host, such as http://127.0.0.1:8000")
	ErrAPI = errors.New("want " + strings.Join(APIs[:len(APIs)-1], ", ") + " or " + APIs[len(APIs)-1])
)

// Endpoint resolves a user-given URL and API name to the endpoint to call:
// a full endpoint URL says its API, a server's root (or its /v1) takes the
// API's path (chat when none is named).
func Endpoint(raw, api string) (endpoint, resolvedAPI string, err error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("server URL: %w", ErrURL)
	}
	path := strings.TrimRight(u.Path, "/")
	if api == "" {
		api = APIChat
	}
	p := protocolOf(api)
	if p == nil {
		return "", "", fmt.Errorf("API %q: %w", api, ErrAPI)
	}
	switch found := apiOfPath(path); {
	case strings.HasSuffix(path, p.path):
		return u.String(), api, nil
	case p.wholePath != "" && strings.HasSuffix(path, p.wholePath):
		u.Path = strings.TrimSuffix(path, p.wholePath) + p.path // streamed unless asked otherwise
		return u.String(), api, nil
	case found != "":
		return u.String(), found, nil // an endpoint given in full says which
	}
	// a server's root, or its /v1
	u.Path = strings.TrimSuffix(path, "/v1") + p.path
	return u.String(), api, nil
}

// Redact returns u without user info and query, which may hold credentials.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

// Endpoint returns the URL as recorded.
func (c *HTTP) Endpoint() string { return c.shown }

// Clock is the clock the client stamps records with.
func (c *HTTP) Clock() *record.Clock { return c.cfg.Clock }

// API returns the API spoken, one of APIs.
func (c *HTTP) API() string { return c.cfg.API }

// Close releases idle connections.
func (c *HTTP) Close() {
	c.CloseUnused()
	if c.h1 != nil {
		c.h1.idle.closeAll()
	}
	c.http.CloseIdleConnections()
}

// body is the request in the API's form, with HTTPConfig.Extra's fields
// over it, and its Content-Type: JSON, or a multipart form with the
// audio a transcription sends.
func (c *HTTP) body(req *Request) ([]byte, string, error) {
	p := protocolOf(c.cfg.API)
	b := p.body(&c.cfg, req)
	for k, v := range c.cfg.Extra {
		b[k] = v
	}
	if p.transcribes {
		return multipartBody(b, req.Media[0]) // checkMedia saw it is one audio
	}
	body, err := json.Marshal(b)
	return body, "application/json", err
}

// Do sends req and fills rec. See Client.
func (c *HTTP) Do(ctx context.Context, req *Request, rec *record.Record) {
	clock := c.cfg.Clock
	rec.V = record.SchemaVersion
	rec.T0 = clock.T0()
	rec.Model = req.Model
	rec.URL = c.shown
	rec.API = c.cfg.API
	rec.Stream = c.cfg.Stream
	rec.MaxTokens = req.MaxTokens

	if err := protocolOf(c.cfg.API).checkMedia(req.Media); err != nil {
		rec.Sent = clock.Now()
		rec.Done = rec.Sent
		rec.Fail(record.KindMalformed, err.Error())
		return
	}
	body, contentType, err := c.body(req)
	rec.RequestBytes = len(body)
	countMedia(rec, req.Media)
	if p := protocolOf(c.cfg.API); p.outputless {
		rec.Inputs, rec.MaxTokens = len(p.inputs(req)), 0 // it asks for no tokens
	}
	if err != nil {
		rec.Sent = clock.Now()
		rec.Done = rec.Sent
		rec.Fail(record.KindMalformed, "encoding request: "+err.Error())
		return
	}
	if c.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
		defer cancel()
	}
	tr := &sendTrace{clock: clock, began: clock.Now(), hold: req.Hold}
	resp, respBody, end, err := c.send(ctx, tr, body, contentType)
	rec.Sent, rec.Upload = tr.sent(), tr.upload()
	rec.Retries = max(0, int(tr.conns.Load())-1)
	if err != nil {
		rec.Done = clock.Now()
		kind := record.KindConnect
		if tr.wroteAt.Load() != 0 {
			kind = record.KindStreamCut
		}
		rec.Fail(classify(ctx, err, kind), failureMessage(ctx, err))
		rec.HTTP = tr.phases(rec)
		return
	}
	defer end()
	c.readAnswer(ctx, tr, resp, respBody, req, rec)
	rec.HTTP = tr.phases(rec)
}

// send posts body to the endpoint and returns the answer, the body to
// read it from, and what ends the exchange once it is read; tr learns
// how the request went out.
func (c *HTTP) send(ctx context.Context, tr *sendTrace, body []byte, contentType string) (*http.Response, io.Reader, func(), error) {
	if c.h1 != nil {
		x, err := c.h1.roundTrip(ctx, tr, contentType, body)
		if err != nil {
			return nil, nil, nil, &url.Error{Op: "Post", URL: c.endpoint, Err: err}
		}
		return x.resp, &x.body, x.done, nil
	}
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, tr.hooks()), http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("building request: %w", err)
	}
	hreq.Header = requestHeaders(&c.cfg)
	hreq.Header.Set("Content-Type", contentType)
	// A POST that fails on a reused connection before a byte of an answer
	// came back was never read by the server: llama.cpp's server closes
	// each connection after its answer though its headers said
	// keep-alive, and the next request went out on the dead socket (a
	// third of them, as 'Post: EOF'). An idempotency key with no value
	// (none is sent) lets net/http send it again on another connection,
	// as it would a GET; the record counts the retries.
	if _, ok := hreq.Header["Idempotency-Key"]; !ok { // a --header's own key is sent as given
		hreq.Header["Idempotency-Key"] = nil
	}
	// net/http's transport makes its own writes: the request is only
	// let go when due
	if !tr.held(func() {}) {
		return nil, nil, nil, context.Cause(ctx)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, nil, nil, err
	}
	return resp, resp.Body, func() { resp.Body.Close() }, nil
}

// requestHeaders are the headers every request carries: the run's own,
// what the stream is asked in, the API's credentials.
func requestHeaders(cfg *HTTPConfig) http.Header {
	h := cfg.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	if cfg.Stream {
		h.Set("Accept", "text/event-stream")
	}
	protocolOf(cfg.API).setAuth(h, cfg.APIKey)
	return h
}

// sendTrace follows one request through the transport: when it was
// written, on how many connections, and how its connection stamps the
// arrival of bytes. Its hooks run on the transport's goroutines.
type sendTrace struct {
	clock   *record.Clock
	began   int64 // when Do began
	wroteAt atomic.Int64
	gotConn atomic.Int64 // when the (last) connection was in hand, or its held send began
	conns   atomic.Int32
	arrival atomic.Pointer[func() time.Time]
	hold    func(write func()) bool // the request's Hold, until it is called
	phaseTrace
}

// held sends through the request's Hold, when it has one not yet used:
// write, or nothing when the request goes by itself (nil). It says
// whether the request may go on.
func (t *sendTrace) held(write func()) bool {
	hold := t.hold
	t.hold = nil
	if hold == nil {
		if write != nil {
			write()
		}
		return true
	}
	return hold(write) || write == nil
}

func (t *sendTrace) hooks() *httptrace.ClientTrace {
	h := t.dialHooks()
	h.GetConn = func(string) { t.askedConn.CompareAndSwap(0, t.clock.Now()) }
	h.GotConn = func(info httptrace.GotConnInfo) {
		if t.conns.Add(1) > 1 {
			t.wroteAt.Store(0) // a retry: sent is when it went out
		}
		// a connection opened before the step was dialled for none, but
		// its TLS handshake, when it has one, was made for this request
		t.gotConnection(t.clock.Now(), info.Reused || (t.dials.Load() == 0 && t.tlsAt.Load() == 0))
		if f := ArrivalOf(info.Conn); f != nil {
			t.arrival.Store(&f)
		}
	}
	h.WroteRequest = func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			t.wroteAt.CompareAndSwap(0, t.clock.Now())
		}
	}
	h.GotFirstResponseByte = t.arrivedFirst
	return h
}

// sent is when the request went out: its write, or when Do began.
// upload is how long writing the request took once a connection was in
// hand (its body's bytes going out: megabytes of media take a while), or
// 0 when it was not written.
func (t *sendTrace) upload() int64 {
	wrote, got := t.wroteAt.Load(), t.gotConn.Load()
	if wrote == 0 || got == 0 || wrote < got {
		return 0
	}
	return wrote - got
}

func (t *sendTrace) sent() int64 {
	if at := t.wroteAt.Load(); at != 0 {
		return at
	}
	return t.began
}

// classify turns an error into a failure kind; fallback is used when the
// context says nothing.
func classify(ctx context.Context, err error, fallback string) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return record.KindTimeout
	case errors.Is(ctx.Err(), context.Canceled), errors.Is(err, context.Canceled):
		return record.KindCanceled
	case errors.Is(err, syscall.ECONNREFUSED):
		return record.KindConnect
	case errors.Is(err, os.ErrDeadlineExceeded):
		return record.KindTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return record.KindTimeout
	}
	return fallback
}

// failureMessage is what a failed request's record says of err: why its
// context ended where the one who ended it said (a user's Ctrl-C, a
// planned cancellation), not the read that the ending broke off ("i/o
// timeout"), else err's own message (describe).
func failureMessage(ctx context.Context, err error) string {
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		return cause.Error()
	}
	return describe(err)
}

// describe returns an error's message without the request URL, which may
// carry credentials in its query.
func describe(err error) string {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Op + ": " + ue.Err.Error()
	}
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) {
		msg += " (--ca-cert FILE trusts the server's CA; --insecure accepts any certificate)"
	}
	return msg
}
