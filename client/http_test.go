package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

func newClient(t *testing.T, url string, mod func(*HTTPConfig)) *HTTP {
	t.Helper()
	cfg := HTTPConfig{URL: url, Stream: true, Concurrency: 4, Timeout: 10 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	c, err := NewHTTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// rawServer answers every request with body, as given.
func rawServer(t *testing.T, status int, contentType, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func chunk(content string) string {
	return fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", content)
}

func TestOpenAIStreamOutcomes(t *testing.T) {
	const usage = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":%d}}\n\n"
	cases := []struct {
		name      string
		status    int
		ctype     string
		body      string
		kind      string // failure kind, "" for success
		tokens    int
		source    string
		chunks    []int // tokens per chunk
		wantInMsg string
	}{
		{name: "usage", status: 200, ctype: "text/event-stream", body: chunk("a") + chunk("b") + fmt.Sprintf(usage, 2) + "data: [DONE]\n\n", tokens: 2, source: "usage", chunks: []int{1, 1}},
		{name: "no usage", status: 200, ctype: "text/event-stream", body: chunk("a") + chunk("b") + chunk("c") + "data: [DONE]\n\n", tokens: 3, source: "chunks", chunks: []int{1, 1, 1}},
		{name: "role chunk not a token", status: 200, ctype: "text/event-stream", body: "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n" + chunk("a") + "data: [DONE]\n\n", tokens: 1, source: "chunks", chunks: []int{1}},
		{name: "multi-token chunks apportioned", status: 200, ctype: "text/event-stream", body: chunk("aaa") + chunk("a") + chunk("aa") + fmt.Sprintf(usage, 6) + "data: [DONE]\n\n", tokens: 6, source: "usage", chunks: []int{3, 1, 2}},
		{name: "crlf and comments", status: 200, ctype: "text/event-stream; charset=utf-8", body: ": hi\r\n\r\n" + strings.ReplaceAll(chunk("a")+"data: [DONE]\n\n", "\n", "\r\n"), tokens: 1, source: "chunks", chunks: []int{1}},
		{name: "finish reason without done", status: 200, ctype: "text/event-stream", body: "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n", tokens: 1, source: "chunks", chunks: []int{1}},
		{name: "cut", status: 200, ctype: "text/event-stream", body: chunk("a"), kind: record.KindStreamCut, tokens: 1, chunks: []int{1}},
		{name: "malformed json", status: 200, ctype: "text/event-stream", body: chunk("a") + "data: {\"choices\":[\n\n", kind: record.KindMalformed, tokens: 1, chunks: []int{1}},
		{name: "error mid-stream", status: 200, ctype: "text/event-stream", body: chunk("a") + "data: {\"error\":{\"message\":\"overloaded\"}}\n\n", kind: record.KindServerError, tokens: 1, chunks: []int{1}, wantInMsg: "overloaded"},
		{name: "error event", status: 200, ctype: "text/event-stream", body: "event: error\ndata: {\"message\":\"x\"}\n\n", kind: record.KindServerError},
		{name: "empty", status: 200, ctype: "text/event-stream", body: "data: [DONE]\n\n", kind: record.KindEmpty},
		{name: "http 429", status: 429, ctype: "application/json", body: `{"error":{"message":"slow down"}}`, kind: record.KindHTTPStatus, wantInMsg: "slow down"},
		{name: "http 500 no body", status: 500, ctype: "text/plain", body: "", kind: record.KindHTTPStatus, wantInMsg: "500"},
		{name: "not sse", status: 200, ctype: "text/html", body: "<html>", kind: record.KindMalformed, wantInMsg: "text/html"},
		{name: "json instead of sse", status: 200, ctype: "application/json", body: `{"choices":[{"message":{"content":"abc"}}],"usage":{"completion_tokens":3}}`, tokens: 3, source: "usage", chunks: []int{3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := newClient(t, rawServer(t, c.status, c.ctype, c.body), nil)
			var rec record.Record
			cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 8}, &rec)
			kind := ""
			if rec.Error != nil {
				kind = rec.Error.Kind
				if c.wantInMsg != "" && !strings.Contains(rec.Error.Message, c.wantInMsg) {
					t.Errorf("message %q does not mention %q", rec.Error.Message, c.wantInMsg)
				}
			}
			if kind != c.kind {
				t.Fatalf("failure kind %q (%v), want %q", kind, rec.Error, c.kind)
			}
			if rec.OutputTokens != c.tokens {
				t.Errorf("tokens %d, want %d", rec.OutputTokens, c.tokens)
			}
			if c.source != "" && rec.TokenSource != c.source {
				t.Errorf("source %q, want %q", rec.TokenSource, c.source)
			}
			var got []int
			for _, ch := range rec.Chunks {
				got = append(got, ch.Tokens)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.chunks) && !(len(got) == 0 && len(c.chunks) == 0) {
				t.Errorf("chunk tokens %v, want %v", got, c.chunks)
			}
			if rec.Done < rec.Sent || (len(rec.Chunks) > 0 && (rec.First < rec.Sent || rec.Last < rec.First || rec.Done < rec.Last)) {
				t.Errorf("stamps out of order: %+v", rec)
			}
		})
	}
}

func TestOpenAIConnectRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	cl := newClient(t, url, nil)
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	if rec.Error == nil || rec.Error.Kind != record.KindConnect {
		t.Fatalf("error %v, want connect", rec.Error)
	}
}

func TestOpenAITimeout(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 2 * time.Second, Gap: time.Millisecond, Tokens: 2})
	defer srv.Close()
	cl := newClient(t, srv.URL, func(c *HTTPConfig) { c.Timeout = 100 * time.Millisecond })
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	if rec.Error == nil || rec.Error.Kind != record.KindTimeout {
		t.Fatalf("error %v, want timeout", rec.Error)
	}
}

func TestOpenAISecretsStayOut(t *testing.T) {
	const key = "sk-SECRET-abc123"
	// a channel, not a variable: the race detector does not see the
	// socket between handler and client, as the client reads it with recvmsg
	auth := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case auth <- r.Header.Get("Authorization"):
		default:
		}
		w.WriteHeader(401)
		fmt.Fprint(w, `{"error":{"message":"bad key"}}`)
	}))
	defer srv.Close()
	url := strings.Replace(srv.URL, "http://", "http://user:"+key+"@", 1) + "/v1?api-key=" + key
	cl := newClient(t, url, func(c *HTTPConfig) { c.APIKey = key })
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	if gotAuth := <-auth; gotAuth != "Bearer "+key {
		t.Fatalf("server got Authorization %q", gotAuth)
	}
	line := fmt.Sprintf("%+v %+v", rec, rec.Error)
	if strings.Contains(line, key) {
		t.Fatalf("record leaks the key: %s", line)
	}
}

func TestEndpoint(t *testing.T) {
	cases := []struct{ in, api, want, wantAPI string }{
		{"http://h:8000", "", "http://h:8000/v1/chat/completions", "chat"},
		{"http://h:8000/", "completions", "http://h:8000/v1/completions", "completions"},
		{"http://h:8000/v1", "chat", "http://h:8000/v1/chat/completions", "chat"},
		{"https://h/openai/v1/completions", "chat", "https://h/openai/v1/completions", "completions"},
		{"http://h/v1/chat/completions", "", "http://h/v1/chat/completions", "chat"},
		{"http://h:8000", "responses", "http://h:8000/v1/responses", "responses"},
		{"http://h:8000/v1", "llamacpp", "http://h:8000/completion", "llamacpp"},
		{"http://h:8080", "tgi", "http://h:8080/generate_stream", "tgi"},
		{"http://h:8080/generate", "tgi", "http://h:8080/generate_stream", "tgi"},
		{"http://h:30000/", "sglang", "http://h:30000/generate", "sglang"},
		{"http://h:11434", "ollama", "http://h:11434/api/chat", "ollama"},
		{"http://h/api/chat", "", "http://h/api/chat", "ollama"},
		{"http://h/completion", "chat", "http://h/completion", "llamacpp"},
	}
	for _, c := range cases {
		got, api, err := Endpoint(c.in, c.api)
		if err != nil || got != c.want || api != c.wantAPI {
			t.Errorf("Endpoint(%q,%q) = %q %q %v, want %q %q", c.in, c.api, got, api, err, c.want, c.wantAPI)
		}
	}
	for _, bad := range []string{"", "localhost:8000", "ftp://h", "http://"} {
		if _, _, err := Endpoint(bad, ""); err == nil {
			t.Errorf("Endpoint(%q) accepted", bad)
		}
	}
}

func TestClientTokenizerWhenNoUsage(t *testing.T) {
	url := rawServer(t, 200, "text/event-stream", chunk("Hello,")+chunk(" wor")+chunk("ld!")+"data: [DONE]\n\n")
	words := func(s string) int { return len(strings.Fields(s)) + strings.Count(s, ",") + strings.Count(s, "!") }
	cl := newClient(t, url, func(c *HTTPConfig) { c.Tokenizer = TextCounter{Name: "words", Count: words} })
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	// "Hello, world!": 2 words, a comma and a bang: 4 tokens over 3 chunks
	if rec.Error != nil || rec.OutputTokens != 4 || rec.TokenSource != record.SourceTokenizer || len(rec.Chunks) != 3 {
		t.Fatalf("%+v", rec)
	}
	total := 0
	for _, c := range rec.Chunks {
		total += c.Tokens
	}
	if total != 4 {
		t.Errorf("chunk tokens add up to %d", total)
	}
}

// TestStampsNeverPrecedeTheSend: an arrival stamped before the request's
// send (the kernel's receive time can precede the hook that stamps the
// send) is recorded at the send, and chunks keep their order.
func TestStampsNeverPrecedeTheSend(t *testing.T) {
	clock := record.NewClock()
	rec := record.Record{Sent: int64(50 * time.Millisecond)}
	early := clock.Time(rec.Sent - int64(time.Millisecond))
	body := strings.NewReader(chunk("a") + chunk("b") + "data: [DONE]\n\n")
	Measure(body, func() time.Time { return early }, &rec, clock, APIChat, true, MeasureOptions{Header: http.Header{"Content-Type": {"text/event-stream"}}})
	if rec.Error != nil || len(rec.Chunks) != 2 {
		t.Fatalf("record %+v", rec)
	}
	for i, c := range rec.Chunks {
		if c.At != 0 {
			t.Errorf("chunk %d at %d ns after the send, want 0", i, c.At)
		}
	}
	if rec.First != rec.Sent || rec.Done < rec.Last {
		t.Errorf("first %d, sent %d, last %d, done %d", rec.First, rec.Sent, rec.Last, rec.Done)
	}
}

// TestEndpointErrorsNameNoFlag: a Go caller passed no flag; the library's
// errors say what is wrong with the value, and the CLI adds the flag.
func TestEndpointErrorsNameNoFlag(t *testing.T) {
	_, _, urlErr := Endpoint("ftp://h", "")
	_, _, apiErr := Endpoint("http://h", "grpc")
	if !errors.Is(urlErr, ErrURL) || !errors.Is(apiErr, ErrAPI) || strings.Contains(urlErr.Error()+apiErr.Error(), "--") {
		t.Errorf("errors %q, %q", urlErr, apiErr)
	}
}

// TestTokenizerCountKeptWithUsage: with a tokenizer configured, its count
// is kept beside the server's usage (GenAI-Perf's convention uses it).
func TestTokenizerCountKeptWithUsage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, chunk("a b")+chunk(" c")+"data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	words := func(s string) int { return len(strings.Fields(s)) }
	cl := newClient(t, srv.URL, func(c *HTTPConfig) { c.Tokenizer = TextCounter{Name: "words", Count: words} })
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	if rec.OutputTokens != 2 || rec.TokenSource != record.SourceUsage || rec.TokenizerTokens != 3 || rec.Tokenizer != "words" {
		t.Errorf("output %d from %s, tokenizer %q counted %d", rec.OutputTokens, rec.TokenSource, rec.Tokenizer, rec.TokenizerTokens)
	}
}

// TestTokenizerBelowChunksCountsTokensOnce: a tokenizer (another model's)
// that counts fewer tokens than the chunks that streamed is raised to
// them, each having carried one; so the output count, the chunks' tokens
// and the ITL samples agree: one ITL a token after the first (176 ITL
// samples for 164 tokens was reported when they did not).
func TestTokenizerBelowChunksCountsTokensOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 5 {
			fmt.Fprint(w, chunk("a"))
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	one := func(string) int { return 1 } // "aaaaa" is one token to it
	cl := newClient(t, srv.URL, func(c *HTTPConfig) { c.Tokenizer = TextCounter{Name: "one", Count: one} })
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p"}, &rec)
	inChunks, itls := 0, 0
	for _, c := range rec.Chunks {
		inChunks += c.Tokens
	}
	rec.ITLs(func(_ time.Duration, n int) { itls += n })
	first := rec.Chunks[0].Tokens
	if rec.TokenizerTokens != 1 || rec.OutputTokens != 5 || inChunks != 5 || itls != rec.OutputTokens-first {
		t.Errorf("tokenizer %d, output %d, in chunks %d, ITL samples %d (first arrival %d tokens)", rec.TokenizerTokens, rec.OutputTokens, inChunks, itls, first)
	}
	// the count used is the chunks', and the record says so
	if rec.TokenSource != record.SourceChunks || rec.Tokenizer != "one" {
		t.Errorf("source %q, tokenizer %q: want the chunks', the tokenizer's count kept beside it", rec.TokenSource, rec.Tokenizer)
	}
}
