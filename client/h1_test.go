package client

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// wireServer is a server that speaks raw bytes: answer reads one request
// from a connection and writes what it wants; returning false closes the
// connection. It counts the connections it accepted.
type wireServer struct {
	url   string
	conns atomic.Int32
}

func newWireServer(t *testing.T, answer func(req *http.Request, body []byte, w io.Writer) bool) *wireServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &wireServer{url: "http://" + ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			wg.Go(func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, err := io.ReadAll(req.Body)
					if err != nil || !answer(req, body, conn) {
						return
					}
				}
			})
		}
	})
	return s
}

const wireStream = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"finish_reason\":\"stop\",\"delta\":{}}]}\n\ndata: [DONE]\n\n"

// streamed writes wireStream as one chunked answer with extra headers.
func streamed(w io.Writer, headers string) {
	fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n%sTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", headers, len(wireStream), wireStream)
}

func doOnce(t *testing.T, c *HTTP, prompt string) *record.Record {
	t.Helper()
	var rec record.Record
	c.Do(context.Background(), &Request{Model: "m", Prompt: prompt, MaxTokens: 4}, &rec)
	return &rec
}

// TestH1RequestOnTheWire: the request the client's own HTTP/1.1 writes is
// the one net/http would: the endpoint's path and query, the host, the
// body's length and type, the stream asked for, the key, the run's
// headers (but not those that are the request's own), and basic auth from
// the URL when no key is sent.
func TestH1RequestOnTheWire(t *testing.T) {
	var got []*http.Request
	var bodies []string
	var mu sync.Mutex
	srv := newWireServer(t, func(req *http.Request, body []byte, w io.Writer) bool {
		mu.Lock()
		got, bodies = append(got, req), append(bodies, string(body))
		mu.Unlock()
		streamed(w, "")
		return true
	})
	host := strings.TrimPrefix(srv.url, "http://")
	c := newClient(t, srv.url+"/v1/chat/completions?tenant=a", func(cfg *HTTPConfig) {
		cfg.APIKey = "sk-1"
		cfg.Headers = http.Header{"X-Run": {"7"}, "Content-Type": {"text/plain"}, "Content-Length": {"3"}, "Host": {"elsewhere"}}
	})
	if c.h1 == nil {
		t.Fatal("a plain http:// server without a proxy is not sent to over the client's own HTTP/1.1")
	}
	if rec := doOnce(t, c, "hello"); !rec.OK() {
		t.Fatalf("failed: %+v", rec.Error)
	}
	u := newClient(t, "http://ann:secret@"+host, nil)
	if rec := doOnce(t, u, "hello"); !rec.OK() {
		t.Fatalf("failed: %+v", rec.Error)
	}
	mu.Lock() // the server's goroutine wrote them; TCP orders that, unseen by the race detector
	defer mu.Unlock()
	if len(got) != 2 {
		t.Fatalf("server read %d requests, want 2", len(got))
	}
	r := got[0]
	checks := []struct{ what, got, want string }{
		{"method", r.Method, "POST"},
		{"target", r.RequestURI, "/v1/chat/completions?tenant=a"},
		{"protocol", r.Proto, "HTTP/1.1"},
		{"host", r.Host, host},
		{"content length", fmt.Sprint(r.ContentLength), fmt.Sprint(len(bodies[0]))},
		{"content type", r.Header.Get("Content-Type"), "application/json"},
		{"accept", r.Header.Get("Accept"), "text/event-stream"},
		{"authorization", r.Header.Get("Authorization"), "Bearer sk-1"},
		{"run's header", r.Header.Get("X-Run"), "7"},
		{"idempotency key", fmt.Sprint(r.Header.Values("Idempotency-Key")), "[]"},
		{"user agent", r.Header.Get("User-Agent"), "tpsbench"},
	}
	user, pass, ok := got[1].BasicAuth()
	checks = append(checks, struct{ what, got, want string }{"basic auth", fmt.Sprint(user, ":", pass, " ", ok), "ann:secret true"})
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: %q, want %q", ch.what, ch.got, ch.want)
		}
	}
	if !strings.Contains(bodies[0], `"hello"`) {
		t.Errorf("body %q lacks the prompt", bodies[0])
	}
}

// TestH1KeepsConnections: an answer read whole leaves its connection for
// the next request; one that says Connection: close, or that came with
// bytes past its end, does not.
func TestH1KeepsConnections(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(w io.Writer)
		conns int32
	}{
		{"kept alive", func(w io.Writer) { streamed(w, "") }, 1},
		{"Connection: close", func(w io.Writer) { streamed(w, "Connection: close\r\n") }, 4},
		// in the answer's own write: bytes sent later, after the client
		// has taken the connection again, are the next answer's to it
		{"bytes past the answer", func(w io.Writer) {
			var b bytes.Buffer
			streamed(&b, "")
			b.WriteString("HTTP/1.1 200 OK\r\n")
			w.Write(b.Bytes())
		}, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newWireServer(t, func(_ *http.Request, _ []byte, w io.Writer) bool { c.write(w); return true })
			cl := newClient(t, srv.url, func(cfg *HTTPConfig) { cfg.Concurrency = 1 })
			for i := range 4 {
				if rec := doOnce(t, cl, "hi"); !rec.OK() || rec.Retries != 0 {
					t.Fatalf("request %d: error %+v, %d retries", i, rec.Error, rec.Retries)
				}
			}
			if n := srv.conns.Load(); n != c.conns {
				t.Errorf("4 requests took %d connections, want %d", n, c.conns)
			}
		})
	}
}

// TestH1Answers: what a server answers with, as the record has it: an
// interim 100 Continue before the answer is passed over; a head longer
// than 1 MiB, a malformed status line and a close before any answer are
// failures that say so.
func TestH1Answers(t *testing.T) {
	long := strings.Repeat("x", 2<<20)
	for _, c := range []struct {
		name  string
		write func(w io.Writer)
		kind  string
		msg   string
	}{
		{"interim answer first", func(w io.Writer) { io.WriteString(w, "HTTP/1.1 100 Continue\r\n\r\n"); streamed(w, "") }, "", ""},
		{"head too long", func(w io.Writer) { io.WriteString(w, "HTTP/1.1 200 OK\r\nX-Long: "+long+"\r\n\r\n") }, record.KindStreamCut, "longer than 1048576 bytes"},
		{"not HTTP", func(w io.Writer) { io.WriteString(w, "SSH-2.0-OpenSSH_9.6\r\n\r\n") }, record.KindStreamCut, "malformed HTTP"},
		{"closed unanswered", func(io.Writer) {}, record.KindStreamCut, "EOF"},
		{"not found", func(w io.Writer) {
			const body = `{"error":{"message":"no such model"}}`
			fmt.Fprintf(w, "HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		}, record.KindHTTPStatus, "HTTP 404 Not Found: no such model"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newWireServer(t, func(_ *http.Request, _ []byte, w io.Writer) bool { c.write(w); return false })
			rec := doOnce(t, newClient(t, srv.url, nil), "hi")
			if c.kind == "" {
				if !rec.OK() || rec.OutputTokens != 1 {
					t.Fatalf("error %+v, %d tokens; want 1 token", rec.Error, rec.OutputTokens)
				}
				return
			}
			if rec.OK() || rec.Error.Kind != c.kind || !strings.Contains(rec.Error.Message, c.msg) {
				t.Fatalf("error %+v, want %s saying %q", rec.Error, c.kind, c.msg)
			}
		})
	}
}

// TestH1SentBeforeTheServerReadIt: a request is stamped sent before the
// server can have read it, a large one too, whose bulk's writing is its
// upload.
func TestH1SentBeforeTheServerReadIt(t *testing.T) {
	var read []time.Time
	var mu sync.Mutex
	srv := newWireServer(t, func(_ *http.Request, _ []byte, w io.Writer) bool {
		mu.Lock()
		read = append(read, time.Now())
		mu.Unlock()
		streamed(w, "")
		return true
	})
	clock := record.NewClock()
	c := newClient(t, srv.url, func(cfg *HTTPConfig) { cfg.Clock = clock })
	for i, prompt := range []string{"hi", strings.Repeat("long prompt ", 100_000)} {
		rec := doOnce(t, c, prompt)
		if !rec.OK() {
			t.Fatalf("request %d failed: %+v", i, rec.Error)
		}
		sent := time.Unix(0, rec.T0+rec.Sent)
		mu.Lock()
		readAt := read[i]
		mu.Unlock()
		if sent.After(readAt) {
			t.Errorf("request %d (%d bytes) marked sent %v after the server read it", i, rec.RequestBytes, sent.Sub(readAt))
		}
		if i == 1 && rec.Upload <= 0 {
			t.Errorf("a %d-byte request took no upload", rec.RequestBytes)
		}
	}
}

// TestH1RefusedMidUpload: a server that answers before it has read the
// whole request (413 for a body too large) and closes is recorded with
// its answer, not as the write it cut.
func TestH1RefusedMidUpload(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
			return
		}
		const body = `{"error":{"message":"request too large"}}`
		fmt.Fprintf(conn, "HTTP/1.1 413 Request Entity Too Large\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	})
	c := newClient(t, "http://"+ln.Addr().String(), nil)
	rec := doOnce(t, c, strings.Repeat("x", 32<<20))
	if rec.OK() || rec.Status != 413 || !strings.Contains(rec.Error.Message, "request too large") {
		t.Fatalf("status %d, error %+v; want the server's 413 and its reason", rec.Status, rec.Error)
	}
}

// TestH1RefusesBadHeaders: a header no server could be sent is refused
// when the client is made, naming it.
func TestH1RefusesBadHeaders(t *testing.T) {
	for _, h := range []http.Header{{"X Bad": {"v"}}, {"X-Ok": {"a\r\nX-Injected: 1"}}, {"": {"v"}}} {
		_, err := NewHTTP(HTTPConfig{URL: "http://127.0.0.1:1", Headers: h})
		if err == nil || !strings.Contains(err.Error(), "header") {
			t.Errorf("headers %q: error %v, want one naming the header", h, err)
		}
	}
}

// TestH1OnlyPlainHTTP: https goes through net/http's transport (TLS).
func TestH1OnlyPlainHTTP(t *testing.T) {
	c := newClient(t, "https://127.0.0.1:1", nil)
	if c.h1 != nil {
		t.Error("an https:// server would be sent to over plain HTTP/1.1")
	}
}

// FuzzH1Answer: whatever bytes a server answers with, the exchange reads
// a head and a body or says why not, and never keeps a connection with
// bytes left on it.
func FuzzH1Answer(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\ndata:\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	f.Add([]byte("HTTP/1.0 200 OK\r\n\r\nuntil the end"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1"))
	f.Fuzz(func(t *testing.T, answer []byte) {
		h := &h1{maxIdle: 1}
		conn := &answerConn{Reader: bytes.NewReader(answer)}
		x := &h1Exchange{h: h, conn: conn, cancel: func() bool { return true }}
		if err := x.readHead(nil); err != nil {
			x.abandon()
			return
		}
		if _, err := io.Copy(io.Discard, io.LimitReader(&x.body, 1<<20)); err != nil {
			x.abandon()
			return
		}
		x.done()
		// bytes past a buffer's fill are the kernel's until read: the
		// next checkout's peek finds those
		if h.idle.len() == 1 && conn.Reader.Len() > 0 && len(answer) <= 16<<10 {
			t.Fatalf("kept a connection with %d bytes unread: %q", conn.Reader.Len(), answer)
		}
	})
}

// answerConn is a connection whose server has answered with Reader's bytes.
type answerConn struct {
	net.Conn
	*bytes.Reader
}

func (c *answerConn) Read(p []byte) (int, error) { return c.Reader.Read(p) }
func (c *answerConn) Close() error               { return nil }
