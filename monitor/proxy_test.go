package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/internal/syncbuf"
	"github.com/tpsbench/tpsbench/record"
)

func proxyTo(t *testing.T, upstream string) (*httptest.Server, *syncbuf.Buffer, *Exporter) {
	t.Helper()
	buf := &syncbuf.Buffer{}
	exp := NewExporter()
	p, err := NewProxy(upstream, exp, record.NewWriter(buf))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", exp.Handler())
	mux.Handle("/", p)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, buf, exp
}

func post(t *testing.T, url, body string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// records waits up to 5 s for n records (the proxy writes a record once
// its response has passed) and returns what is there.
func records(t *testing.T, buf *syncbuf.Buffer, n int) []record.Record {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for bytes.Count(buf.Bytes(), []byte("\n")) < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var out []record.Record
	rd := record.NewReader(bytes.NewReader(buf.Bytes()), "proxy")
	for {
		var r record.Record
		if err := rd.Next(&r); err != nil {
			break
		}
		out = append(out, r)
	}
	return out
}

// TestProxyPassesBytesUnchanged: the same bytes with and without the proxy,
// streamed and not, and a record of each request.
func TestProxyPassesBytesUnchanged(t *testing.T) {
	// A deterministic upstream: the scripted server's ids count requests,
	// so give each path its own server.
	for _, stream := range []bool{true, false} {
		body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":6,"stream":` + map[bool]string{true: "true", false: "false"}[stream] + `,"stream_options":{"include_usage":true}}`
		direct := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true, RoleChunk: true})
		viaUp := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true, RoleChunk: true})
		defer direct.Close()
		defer viaUp.Close()
		proxy, buf, _ := proxyTo(t, viaUp.URL)
		_, want := post(t, direct.URL+"/v1/chat/completions", body, nil)
		resp, got := post(t, proxy.URL+"/v1/chat/completions", body, http.Header{"Authorization": {"Bearer sk-proxy-secret"}})
		if resp.StatusCode != 200 || !bytes.Equal(got, want) {
			t.Fatalf("stream %v: bytes differ through the proxy:\n%s\n---\n%s", stream, got, want)
		}
		recs := records(t, buf, 1)
		if len(recs) != 1 || recs[0].Error != nil || recs[0].OutputTokens != 6 || recs[0].TokenSource != record.SourceUsage || recs[0].Model != "m" {
			t.Fatalf("stream %v: records %+v", stream, recs)
		}
		if stream && (len(recs[0].Chunks) != 6 || recs[0].First <= recs[0].Sent) {
			t.Fatalf("stream timing %+v", recs[0])
		}
		if bytes.Contains(buf.Bytes(), []byte("sk-proxy-secret")) {
			t.Fatal("the Authorization header reached the records")
		}
	}
}

func TestProxyPassesOtherRoutes(t *testing.T) {
	up := scripted.New(scripted.Script{})
	defer up.Close()
	proxy, buf, _ := proxyTo(t, up.URL)
	resp, err := http.Get(proxy.URL + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
	if len(buf.Bytes()) != 0 {
		t.Error("a model listing was recorded")
	}
}

func TestProxyUpstreamDown(t *testing.T) {
	// port 1: nothing listens there. (A closed test server's port could
	// be taken by the proxy's own, which then proxied to itself: 10,000
	// nested requests in one CI run.)
	proxy, buf, _ := proxyTo(t, "http://127.0.0.1:1")
	resp, body := post(t, proxy.URL+"/v1/chat/completions", `{"model":"m","stream":true}`, nil)
	if resp.StatusCode != 502 || !bytes.Contains(body, []byte("upstream")) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	recs := records(t, buf, 1)
	if len(recs) != 1 || recs[0].Error == nil || recs[0].Error.Kind != record.KindConnect {
		t.Fatalf("records %+v", recs)
	}
}

func TestProxyClientDisconnectReachesUpstream(t *testing.T) {
	up := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: 20 * time.Millisecond, Usage: true})
	defer up.Close()
	proxy, buf, _ := proxyTo(t, up.URL)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", proxy.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","max_tokens":200,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Read(make([]byte, 256))
	cancel()
	resp.Body.Close()
	recs := records(t, buf, 1)
	if len(recs) != 1 || recs[0].Error == nil || recs[0].Error.Kind != record.KindCanceled {
		t.Fatalf("records %+v", recs)
	}
	time.Sleep(100 * time.Millisecond)
	log, _ := up.Log("cmpl-0")
	if len(log.Events) >= 200 {
		t.Errorf("upstream went on to send %d events after the client left", len(log.Events))
	}
}

// TestProxyMeasuresLikeTheClient: the proxy's records agree with the
// client's own for the same requests.
func TestProxyMeasuresLikeTheClient(t *testing.T) {
	up := scripted.New(scripted.Script{TTFT: 20 * time.Millisecond, Gap: 10 * time.Millisecond, Usage: true})
	defer up.Close()
	proxy, buf, _ := proxyTo(t, up.URL)
	cl, err := client.NewHTTP(client.HTTPConfig{URL: proxy.URL, Stream: true, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var mine record.Record
	cl.Do(context.Background(), &client.Request{Model: "m", Prompt: "p", MaxTokens: 10}, &mine)
	recs := records(t, buf, 1)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	theirs := recs[0]
	tpotMine, _ := mine.TPOT()
	tpotTheirs, _ := theirs.TPOT()
	// The proxy sees each chunk a little before the client; the two TPOTs
	// differ by the change in that hop's delay between the first and last
	// chunk, over 9 gaps: under 5 ms even if the hop varies by 45 ms on a
	// loaded machine.
	if d := tpotMine - tpotTheirs; d > 5*time.Millisecond || d < -5*time.Millisecond || theirs.OutputTokens != mine.OutputTokens {
		t.Fatalf("client TPOT %v, proxy TPOT %v, tokens %d vs %d", tpotMine, tpotTheirs, mine.OutputTokens, theirs.OutputTokens)
	}
}

func TestProxyAPIKey(t *testing.T) {
	up := scripted.New(scripted.Script{Usage: true})
	defer up.Close()
	p, _ := NewProxy(up.URL, nil, nil)
	p.APIKey = "sk-proxy"
	srv := httptest.NewServer(p)
	defer srv.Close()
	resp, _ := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","max_tokens":2}`, nil)
	if resp.StatusCode != 401 {
		t.Fatalf("no key: %d", resp.StatusCode)
	}
	resp, _ = post(t, srv.URL+"/v1/chat/completions", `{"model":"m","max_tokens":2}`, http.Header{"Authorization": {"Bearer sk-proxy"}})
	if resp.StatusCode != 200 {
		t.Fatalf("with the key: %d", resp.StatusCode)
	}
	// Anthropic's clients send theirs as x-api-key
	body := `{"model":"m","max_tokens":2,"messages":[{"role":"user","content":"hi"}]}`
	for key, want := range map[string]int{"sk-proxy": 200, "sk-other": 401} {
		resp, _ = post(t, srv.URL+"/v1/messages", body, http.Header{"x-api-key": {key}, "anthropic-version": {"2023-06-01"}})
		if resp.StatusCode != want {
			t.Errorf("x-api-key %s: %d, want %d", key, resp.StatusCode, want)
		}
	}
}

// TestProxyUnderLoad: 1,000 connections through the proxy, half silent and
// half leaving early; the proxy keeps serving and every request is
// recorded once the clients are gone.
func TestProxyUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	up := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: 5 * time.Millisecond, Usage: true})
	defer up.Close()
	proxy, buf, _ := proxyTo(t, up.URL)
	addr := strings.TrimPrefix(proxy.URL, "http://")
	body := `{"model":"m","max_tokens":20,"stream":true}`
	req := fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	var conns []net.Conn
	for i := 0; i < 1000; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		c.Write([]byte(req))
		if i%2 == 1 {
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			c.Read(make([]byte, 64))
			c.Close()
			continue
		}
		conns = append(conns, c)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(proxy.URL + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("proxy not serving under load: %v", err)
	}
	resp.Body.Close()
	for _, c := range conns {
		c.Close()
	}
	if got := len(records(t, buf, 1000)); got != 1000 {
		t.Fatalf("%d records for 1,000 requests", got)
	}
}

// TestProxyReusesUpstreamConnections: a second wave of concurrent streams
// reuses the first wave's upstream connections instead of opening new
// ones (net/http keeps two idle connections a host unless told more).
func TestProxyReusesUpstreamConnections(t *testing.T) {
	h := scripted.NewHandler(func(int) scripted.Script {
		return scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true}
	}, false)
	up := httptest.NewUnstartedServer(h)
	var opened atomic.Int32
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	up.Start()
	defer up.Close()
	proxy, _, _ := proxyTo(t, up.URL)
	const streams = 8
	wave := func() {
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
				resp, err := http.Post(proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","max_tokens":5,"stream":true}`))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
	}
	wave()
	time.Sleep(100 * time.Millisecond) // the proxy puts connections back after their last read
	wave()
	if n := opened.Load(); n > streams+2 {
		t.Fatalf("%d upstream connections for two waves of %d streams", n, streams)
	}
}

// fullDiskSink fails while full is set, as a records file on a full disk.
type fullDiskSink struct {
	full  atomic.Bool
	tries atomic.Int64
	kept  atomic.Int64
}

func (s *fullDiskSink) Write(*record.Record) error {
	defer s.tries.Add(1)
	if s.full.Load() {
		return errors.New("writing record: no space left on device")
	}
	s.kept.Add(1)
	return nil
}

// TestProxyRecordsOnAFullDisk: records stopped for good, without a word,
// after one write error. Now each loss is counted on /metrics, told once
// on the log, and writing resumes when the disk allows.
func TestProxyRecordsOnAFullDisk(t *testing.T) {
	up := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true})
	defer up.Close()
	sink := &fullDiskSink{}
	exp := NewExporter()
	p, err := NewProxy(up.URL, exp, sink)
	if err != nil {
		t.Fatal(err)
	}
	log := &syncbuf.Buffer{}
	p.Log = log
	srv := httptest.NewServer(p)
	defer srv.Close()
	request := func() {
		resp, _ := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","max_tokens":2,"stream":true}`, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	waitTries := func(n int64) {
		deadline := time.Now().Add(5 * time.Second)
		for sink.tries.Load() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	sink.full.Store(true)
	request()
	request()
	waitTries(2)
	sink.full.Store(false)
	request()
	waitTries(3)
	if sink.kept.Load() != 1 {
		t.Errorf("%d records kept, want 1", sink.kept.Load())
	}
	rec := httptest.NewRecorder()
	exp.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), "tpsbench_records_lost_total 2") {
		t.Errorf("metrics lack the two lost records:\n%s", rec.Body)
	}
	if got := log.String(); strings.Count(got, "no space left") != 1 || !strings.Contains(got, "writing records again") {
		t.Errorf("log %q: want the failure told once, then the recovery", got)
	}
}

// TestProxyHostileClients: the proxy's /metrics was open when its routes
// needed a key; "bearer" in lower case was refused (RFC 7235 makes the
// scheme case-insensitive); a 3 MB model name was stored whole in records.
func TestProxyHostileClients(t *testing.T) {
	up := scripted.New(scripted.Script{Usage: true})
	defer up.Close()
	buf := &syncbuf.Buffer{}
	p, _ := NewProxy(up.URL, NewExporter(), record.NewWriter(buf))
	p.APIKey = "sk-proxy"
	stop, url, err := p.Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	get := func(header string) int {
		req, _ := http.NewRequest("GET", url+"/metrics", nil)
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(""); code != 401 {
		t.Errorf("/metrics without the key: %d, want 401", code)
	}
	if code := get("bearer sk-proxy"); code != 200 {
		t.Errorf("/metrics with a lower-case scheme: %d, want 200", code)
	}
	long := strings.Repeat("m", 3<<20)
	resp, _ := post(t, url+"/v1/chat/completions", `{"model":"`+long+`","max_tokens":2}`, http.Header{"Authorization": {"BEARER sk-proxy"}})
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	recs := records(t, buf, 1)
	if len(recs) != 1 || len(recs[0].Model) > 300 || !strings.HasPrefix(recs[0].Model, "mmm") {
		t.Fatalf("model kept as %d bytes", len(recs[0].Model))
	}
}

// TestProxyCountsWholeResponsesWithoutUsage: a non-streamed response
// without usage was one token in proxy records; the proxy's fallback
// tokenizer counts its text, and the record names it.
func TestProxyCountsWholeResponsesWithoutUsage(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"message":{"content":%q}}]}`, strings.Repeat(" word", 40))
	}))
	defer up.Close()
	buf := &syncbuf.Buffer{}
	p, _ := NewProxy(up.URL, nil, record.NewWriter(buf))
	p.Fallback = client.TextCounter{Name: "words", Count: func(s string) int { return len(strings.Fields(s)) }}
	srv := httptest.NewServer(p)
	defer srv.Close()
	post(t, srv.URL+"/v1/chat/completions", `{"model":"m","max_tokens":40}`, nil)
	recs := records(t, buf, 1)
	if len(recs) != 1 || recs[0].OutputTokens != 40 || recs[0].TokenSource != record.SourceTokenizer || recs[0].Tokenizer != "words" {
		t.Fatalf("records %+v", recs)
	}
}

// TestProxyCountsChunksLive: the proxy's exporter counted a response's
// tokens only when it ended; it counts each chunk as it passes (the
// response cannot have ended yet: the server paces 200 tokens 3 ms apart).
func TestProxyCountsChunksLive(t *testing.T) {
	up := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: 3 * time.Millisecond, Usage: true})
	defer up.Close()
	proxy, _, exp := proxyTo(t, up.URL)
	done := make(chan struct{})
	go func() {
		defer close(done)
		post(t, proxy.URL+"/v1/chat/completions", `{"model":"m","max_tokens":200,"stream":true,"stream_options":{"include_usage":true}}`, nil)
	}()
	output := regexp.MustCompile(`tpsbench_output_tokens_total\{gen_ai_request_model="m",step="proxy"\} (\d+)`)
	for {
		rec := httptest.NewRecorder()
		exp.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		if m := output.FindStringSubmatch(rec.Body.String()); m != nil && m[1] != "0" {
			break
		}
		select {
		case <-done:
			t.Fatal("no output tokens counted until the response ended")
		case <-time.After(5 * time.Millisecond):
		}
	}
	<-done
}

// TestProxyRetriesAConnectionClosedBeforeAnswering: behind the proxy, an
// upstream that closes each kept-alive connection after its answer (as
// llama.cpp's server does) fails no request; the records count the
// retries.
func TestProxyRetriesAConnectionClosedBeforeAnswering(t *testing.T) {
	up, err := scripted.NewClosing()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	proxy, buf, _ := proxyTo(t, up.URL)
	const n = 10
	for i := range n {
		resp, body := post(t, proxy.URL+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, nil)
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte("[DONE]")) {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	recs := records(t, buf, n)
	retries := 0
	for _, r := range recs {
		if !r.OK() || r.OutputTokens != 2 {
			t.Errorf("record %d: %d tokens, %+v", r.Seq, r.OutputTokens, r.Error)
		}
		retries += r.Retries
	}
	if len(recs) != n || retries != up.Dropped() || retries == 0 {
		t.Errorf("%d records, %d retries recorded, upstream dropped %d", len(recs), retries, up.Dropped())
	}
}

// TestProxyBodyBudget: the bodies held at once are bounded; past the
// budget a request is answered 503 (30 bodies of 15 MB held 1.15 GB), and
// once held bodies are let go, requests pass again. One body alone always
// passes.
func TestProxyBodyBudget(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 4)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			io.WriteString(w, `{"data":[]}`)
			return
		}
		io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"completion_tokens":1}}`)
	}))
	defer up.Close()
	p, _ := NewProxy(up.URL, nil, nil)
	p.BodyBudget = 1000
	srv := httptest.NewServer(p)
	defer srv.Close()
	body := func(n int) string { return `{"model":"m","prompt":"` + strings.Repeat("a", n) + `"}` }
	first := make(chan int)
	go func() {
		resp, _ := post(t, srv.URL+"/v1/completions", body(700), nil)
		first <- resp.StatusCode
	}()
	<-arrived // the first body is held while its answer is awaited
	resp, b := post(t, srv.URL+"/v1/completions", body(700), nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "proxy_busy") {
		t.Errorf("past the budget: HTTP %d %s", resp.StatusCode, b)
	}
	// unmeasured routes hold no body and pass
	if resp, _ := http.Get(srv.URL + "/v1/models"); resp.StatusCode == http.StatusServiceUnavailable {
		t.Error("an unmeasured route was refused")
	}
	close(release)
	if code := <-first; code != 200 {
		t.Errorf("the held request: HTTP %d", code)
	}
	// the handler lets its body go as it returns, just after its answer
	settled := func() {
		for deadline := time.Now().Add(time.Minute); p.held.Load() != 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d bytes still counted as held a minute after the last answer", p.held.Load())
			}
		}
	}
	settled()
	if resp, _ := post(t, srv.URL+"/v1/completions", body(2000), nil); resp.StatusCode != 200 {
		t.Errorf("one body over the budget, alone: HTTP %d", resp.StatusCode)
	}
	settled()
}

// TestProxyRefusesItselfAsUpstream: a proxy pointed at its own address
// answers 508 to the request that came back to it, and measures the one
// the client sent (it once proxied to itself until 10,000 nested
// requests were recorded).
func TestProxyRefusesItselfAsUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	buf := &syncbuf.Buffer{}
	p, err := NewProxy("http://"+ln.Addr().String(), nil, record.NewWriter(buf))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(p)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	resp, body := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true}`, nil)
	if resp.StatusCode != http.StatusLoopDetected || !bytes.Contains(body, []byte("leads back to the proxy itself")) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp, _ := post(t, srv.URL+"/v1/models", ``, nil); resp.StatusCode != http.StatusLoopDetected {
		t.Errorf("an unmeasured path: %d", resp.StatusCode)
	}
	recs := records(t, buf, 1)
	if len(recs) != 1 || recs[0].Error == nil || recs[0].Status != http.StatusLoopDetected {
		t.Fatalf("%d records, the first %+v", len(recs), recs)
	}
}

// TestProxiesInAChain: two proxies, one before the other, both pass the
// request on (each marks it with its own id, and neither is the other).
func TestProxiesInAChain(t *testing.T) {
	up := scripted.New(scripted.Script{Tokens: 3, Usage: true})
	defer up.Close()
	inner, innerRecs, _ := proxyTo(t, up.URL)
	outer, outerRecs, _ := proxyTo(t, inner.URL)
	resp, body := post(t, outer.URL+"/v1/chat/completions", `{"model":"m","stream":true,"max_tokens":3}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for name, buf := range map[string]*syncbuf.Buffer{"inner": innerRecs, "outer": outerRecs} {
		if recs := records(t, buf, 1); len(recs) != 1 || !recs[0].OK() {
			t.Errorf("%s proxy's records: %+v", name, recs)
		}
	}
}
