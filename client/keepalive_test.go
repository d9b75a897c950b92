package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// TestRetriesAConnectionClosedBeforeAnswering: a request sent on a kept-
// alive connection that the server then closes without answering goes
// out again on a fresh one, is recorded as a retry, and is never a
// failure of the server's.
func TestRetriesAConnectionClosedBeforeAnswering(t *testing.T) {
	srv, err := scripted.NewClosing()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := newClient(t, srv.URL, func(cfg *HTTPConfig) { cfg.Concurrency = 1 })
	const n = 20
	retried := 0
	for i := range n {
		var rec record.Record
		c.Do(context.Background(), &Request{Model: "m", Prompt: "hi", MaxTokens: 2}, &rec)
		if !rec.OK() {
			t.Fatalf("request %d failed: %+v", i, rec.Error)
		}
		if rec.OutputTokens != 2 || rec.Sent <= 0 || rec.First < rec.Sent {
			t.Errorf("request %d: %d tokens, sent %d, first %d", i, rec.OutputTokens, rec.Sent, rec.First)
		}
		retried += rec.Retries
	}
	c.Close()
	srv.Close()
	// every request after the first went out on the connection its
	// predecessor used, which the server dropped
	if srv.Answered() != n || srv.Dropped() != n-1 || retried != n-1 {
		t.Errorf("server answered %d and dropped %d; client recorded %d retries; want %d, %d, %d", srv.Answered(), srv.Dropped(), retried, n, n-1, n-1)
	}
}

// TestLlamaCppTimingsOnOpenAIEndpoints: llama.cpp's server sends its own
// timings on its OpenAI endpoints too, streamed (on the last chunk) and
// whole; they are kept as for its /completion.
func TestLlamaCppTimingsOnOpenAIEndpoints(t *testing.T) {
	const timings = `"timings":{"cache_n":0,"prompt_n":5,"prompt_ms":2.5,"prompt_per_token_ms":0.5,"predicted_n":2,"predicted_ms":7.25,"predicted_per_token_ms":3.625}`
	for _, c := range []struct{ name, ctype, body string }{
		{"streamed", "text/event-stream", chunk("a") + chunk("b") +
			`data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}],"usage":{"completion_tokens":2,"prompt_tokens":5},` + timings + "}\n\ndata: [DONE]\n\n"},
		{"whole", "application/json", `{"choices":[{"message":{"content":"ab"}}],"usage":{"completion_tokens":2,"prompt_tokens":5},` + timings + `}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newClient(t, rawServer(t, 200, c.ctype, c.body), nil)
			var rec record.Record
			cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 2}, &rec)
			if !rec.OK() || rec.Server == nil || rec.Server.PromptEvalNS != 2_500_000 || rec.Server.EvalNS != 7_250_000 {
				t.Errorf("record %+v, server timings %+v", rec.Error, rec.Server)
			}
		})
	}
}

// TestOwnIdempotencyKeySent: a key the user gives (--header) goes out as
// given; none goes out otherwise.
func TestOwnIdempotencyKeySent(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, strings.Join(r.Header.Values("Idempotency-Key"), ","))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, chunk("a")+"data: [DONE]\n\n")
	}))
	defer srv.Close()
	for _, key := range []string{"", "k-1"} {
		c := newClient(t, srv.URL, func(cfg *HTTPConfig) {
			if key != "" {
				cfg.Headers = http.Header{"Idempotency-Key": {key}}
			}
		})
		var rec record.Record
		c.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 1}, &rec)
		if !rec.OK() {
			t.Fatal(rec.Error)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != "" || got[1] != "k-1" {
		t.Errorf("keys received %q, want none and then k-1", got)
	}
}
