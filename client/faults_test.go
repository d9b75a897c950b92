package client

import (
	"bufio"
	"context"
	"errors"
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

// fault is a server misbehaving one way, and the failure it must give:
// its kind ("" for a completed request) and words its message holds.
type fault struct {
	name    string
	handler http.HandlerFunc
	kind    string
	inMsg   string
	timeout time.Duration
}

var faults = []fault{
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
	// a stop string that matched the first token: nothing to show, yet
	// a completed request with the server's count
	{"empty text with usage and a finish reason", func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
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

// TestFaults: each fault gives its failure kind, never a panic or a hang.
func TestFaults(t *testing.T) {
	for _, c := range faults {
		t.Run(c.name, func(t *testing.T) {
			url := faultServer(t, c.handler)
			cl := newClient(t, url, func(cfg *HTTPConfig) {
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

// TestUsageDisagreeingWithChunks: usage that counts fewer tokens than
// chunks carried them (TGI: 1 for 8 events) is not a count: it is kept
// and flagged, and the tokens are the chunks'.
func TestUsageDisagreeingWithChunks(t *testing.T) {
	url := faultServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		fmt.Fprint(w, chunk("a")+chunk("b")+chunk("c")+"data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\ndata: [DONE]\n\n")
	})
	cl := newClient(t, url, nil)
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	if rec.Error != nil || rec.OutputTokens != 3 || rec.TokenSource != record.SourceChunks || rec.UsageTokens != 2 || rec.UsageSuspect == "" || len(rec.Chunks) != 3 {
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

// TestImplausibleUsage: usage claiming 2e9 tokens over 8 chunks made a
// record of 3.7e12 tokens/s (and cost CPU in proportion to the claim); a
// cumulative count that fell went unnoticed. Such usage is kept, flagged,
// and the tokens are counted from the stream; usage that hidden reasoning
// explains is believed.
func TestImplausibleUsage(t *testing.T) {
	eight := strings.Repeat(chunk("word"), 8)
	cumulative := func(text string, n int) string {
		return fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"content\":%q}}],\"usage\":{\"completion_tokens\":%d}}\n\n", text, n)
	}
	cases := []struct {
		name    string
		stream  bool
		body    string
		tokens  int
		source  string
		suspect string
	}{
		{"2e9 tokens over 8 chunks", true, eight + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":2000000000}}\n\ndata: [DONE]\n\n",
			8, record.SourceChunks, "usage claims 2000000000 output tokens for 8 chunks of 32 bytes"},
		{"cumulative usage falling", true, cumulative("a", 1) + cumulative("b", 2) + cumulative("c", 1) + "data: [DONE]\n\n",
			3, record.SourceChunks, "cumulative usage fell from 2 to 1"},
		{"a lying cumulative jump", true, cumulative("a", 1) + cumulative("b", 1500000000) + "data: [DONE]\n\n",
			2, record.SourceChunks, "usage claims 1500000000"},
		{"plausible multi-token chunks", true, eight + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":40}}\n\ndata: [DONE]\n\n",
			40, record.SourceUsage, ""},
		{"hidden reasoning, not streamed", false, `{"choices":[{"message":{"content":"Hi"}}],"usage":{"completion_tokens":900,"completion_tokens_details":{"reasoning_tokens":880}}}`,
			900, record.SourceUsage, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := faultServer(t, func(w http.ResponseWriter, r *http.Request) {
				if c.stream {
					sse(w)
				} else {
					w.Header().Set("Content-Type", "application/json")
				}
				fmt.Fprint(w, c.body)
			})
			cl := newClient(t, url, func(cfg *HTTPConfig) { cfg.Stream = c.stream })
			var rec record.Record
			cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
			if rec.Error != nil || rec.OutputTokens != c.tokens || rec.TokenSource != c.source || !strings.Contains(rec.UsageSuspect, c.suspect) || (c.suspect == "") != (rec.UsageSuspect == "") {
				t.Fatalf("tokens %d from %s, suspect %q; want %d from %s, %q (%v)", rec.OutputTokens, rec.TokenSource, rec.UsageSuspect, c.tokens, c.source, c.suspect, rec.Error)
			}
			total := 0
			for _, ch := range rec.Chunks {
				total += ch.Tokens
			}
			if total != rec.OutputTokens {
				t.Errorf("chunks carry %d tokens, the record %d", total, rec.OutputTokens)
			}
			if rec.UsageTokens > record.MaxTokens {
				t.Errorf("usage %d kept past what a records file may hold", rec.UsageTokens)
			}
		})
	}
}

// TestOtherEventsKept: events with choices but no token (a role-only first
// event, a finish-only last one) are kept apart from the chunks, for
// vLLM's convention, which times from them; a usage event with empty
// choices is not one.
func TestOtherEventsKept(t *testing.T) {
	url := faultServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"+chunk("a")+chunk("b")+
			"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\ndata: [DONE]\n\n")
	})
	cl := newClient(t, url, nil)
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	if rec.Error != nil || len(rec.Chunks) != 2 || len(rec.OtherEvents) != 2 || rec.OtherEvents[0] > rec.Chunks[0].At || rec.OtherEvents[1] < rec.Chunks[1].At {
		t.Fatalf("chunks %v, other events %v (%v)", rec.Chunks, rec.OtherEvents, rec.Error)
	}
}

// TestStreamToAWholeRequest: a server that streams when asked for a
// whole response is named as such, not as "invalid JSON at byte 0".
func TestStreamToAWholeRequest(t *testing.T) {
	url := faultServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		fmt.Fprint(w, chunk("a")+"data: [DONE]\n\n")
	})
	cl := newClient(t, url, func(cfg *HTTPConfig) { cfg.Stream = false })
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 4}, &rec)
	if rec.Error == nil || rec.Error.Kind != record.KindMalformed || !strings.Contains(rec.Error.Message, `text/event-stream) to a request for a whole response: it ignores "stream": false`) {
		t.Errorf("recorded %+v", rec.Error)
	}
}

// TestCancelledSaysWhy: a request whose context is ended with a cause (a
// user's Ctrl-C) is recorded as cancelled for that cause, not for the read
// the ending broke off ("i/o timeout").
func TestCancelledSaysWhy(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	why := errors.New("interrupted by the user (interrupt)")
	c := newClient(t, srv.URL, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { cancel(why) })
	var rec record.Record
	c.Do(ctx, &Request{Model: "m", Prompt: "p", MaxTokens: 5}, &rec)
	if rec.Error == nil || rec.Error.Kind != record.KindCanceled || rec.Error.Message != why.Error() {
		t.Errorf("error %+v, want canceled: %q", rec.Error, why)
	}
}
