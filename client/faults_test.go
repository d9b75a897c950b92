package client

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tpsbench/tpsbench/record"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// faultServer answers with a handler per fault.
func faultServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func sse(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
}

func TestFaults(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		kind    string
		inMsg   string
		timeout time.Duration
	}{
		{"reset mid-stream", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprint(w, chunk("a"))
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
			conn.Close()
		}, record.KindStreamCut, "", 0},
		{"stall before the first token", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, record.KindTimeout, "", 200 * time.Millisecond},
		{"stall mid-stream", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprint(w, chunk("a"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, record.KindTimeout, "", 200 * time.Millisecond},
		{"429 with retry-after", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"error":{"message":"rate limited"}}`)
		}, record.KindHTTPStatus, "429", 0},
		{"503 without a body", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, record.KindHTTPStatus, "503", 0},
		{"401 with an error body", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"error":{"message":"invalid api key","type":"auth"}}`)
		}, record.KindHTTPStatus, "invalid api key", 0},
		{"4 MB line", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\ndata: [DONE]\n\n", strings.Repeat("x", 4<<20))
		}, "", "", 0},
		{"9 MB line", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprintf(w, "data: %s\n\n", strings.Repeat("x", 9<<20))
		}, record.KindMalformed, "longer than", 0},
		{"invalid UTF-8", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\ndata: [DONE]\n\n")
		}, "", "", 0},
		{"no [DONE] and no finish reason", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprint(w, chunk("a")+chunk("b"))
		}, record.KindStreamCut, "without [DONE]", 0},
		{"one event nested 3.6 M levels deep", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprint(w, chunk("a")+"data: {\"choices\":"+strings.Repeat("[", 3_600_000)+"\n\n")
		}, record.KindMalformed, "nested deeper", 0},
		{"gzip body not asked for", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			sse(w)
			fmt.Fprint(w, "\x1f\x8b\x08\x00binary")
		}, record.KindMalformed, "Content-Encoding \"gzip\"", 0},
		{"byte-order mark before the first event", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprint(w, "\uFEFF"+chunk("a")+chunk("b")+"data: [DONE]\n\n")
		}, "", "", 0},
		{"zero tokens", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: [DONE]\n\n")
		}, record.KindEmpty, "", 0},
		{"duplicate chunks", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			fmt.Fprint(w, chunk("a")+chunk("a")+chunk("b")+"data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\ndata: [DONE]\n\n")
		}, "", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := faultServer(t, c.handler)
			cl := newClient(t, url, func(cfg *OpenAIConfig) {
				if c.timeout > 0 {
					cfg.Timeout = c.timeout
				}
			})
			var rec record.Record
			cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 4}, &rec)
			kind := ""
			if rec.Error != nil {
				kind = rec.Error.Kind
				if c.inMsg != "" && !strings.Contains(rec.Error.Message, c.inMsg) {
					t.Errorf("message %q lacks %q", rec.Error.Message, c.inMsg)
				}
			}
			if kind != c.kind {
				t.Fatalf("kind %q (%v), want %q", kind, rec.Error, c.kind)
			}
			if rec.Done < rec.Sent {
				t.Errorf("done %d before sent %d", rec.Done, rec.Sent)
			}
		})
	}
}

// TestUsageDisagreeingWithChunks: when usage counts fewer tokens than were
// streamed, the count is the server's, flagged, and timing keeps every chunk.
func TestUsageDisagreeingWithChunks(t *testing.T) {
	url := faultServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		fmt.Fprint(w, chunk("a")+chunk("b")+chunk("c")+"data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\ndata: [DONE]\n\n")
	})
	cl := newClient(t, url, nil)
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	if rec.Error != nil || rec.OutputTokens != 2 || rec.UsageTokens != 2 || len(rec.Chunks) != 3 {
		t.Fatalf("%+v", rec)
	}
}

// TestReaderDoesNotBlockOnSlowBody: a body that dribbles one byte at a
// time is still read event by event.
func TestSlowBody(t *testing.T) {
	url := faultServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		bw := bufio.NewWriter(w)
		for _, b := range []byte(chunk("a") + chunk("b") + "data: [DONE]\n\n") {
			bw.WriteByte(b)
			bw.Flush()
			w.(http.Flusher).Flush()
		}
	})
	cl := newClient(t, url, nil)
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	if rec.Error != nil || rec.OutputTokens != 2 {
		t.Fatalf("%+v", rec)
	}
}
