package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// anthropicStream is a Messages API stream as Anthropic sends it:
// thinking, then text, a ping between, usage in message_start (the
// prompt's) and message_delta (the output's).
const anthropicStream = "event: message_start\n" +
	`data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":9,"cache_read_input_tokens":3,"output_tokens":1}}}` + "\n\n" +
	"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}` + "\n\n" +
	"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}` + "\n\n" +
	"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}` + "\n\n" +
	"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":0}` + "\n\n" +
	"event: ping\n" + `data: {"type": "ping"}` + "\n\n" +
	"event: content_block_start\n" + `data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}` + "\n\n" +
	"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}}` + "\n\n" +
	"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" there"}}` + "\n\n" +
	"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":1}` + "\n\n" +
	"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":6}}` + "\n\n" +
	"event: message_stop\n" + `data: {"type":"message_stop"}` + "\n\n"

// measureAnthropic reads body as the client reads a Messages response.
func measureAnthropic(body string, stream bool) *record.Record {
	clock := record.NewClock()
	rec := &record.Record{}
	h := http.Header{}
	if stream {
		h.Set("Content-Type", "text/event-stream")
	}
	Measure(strings.NewReader(body), nil, rec, clock, APIAnthropic, stream, MeasureOptions{Header: h})
	return rec
}

// TestAnthropicStream: its text and thinking deltas are the chunks, the
// output count message_delta's, the prompt's message_start's (its cache
// reads included), the stop reason OpenAI's name for it; what follows
// message_stop is not the response's.
func TestAnthropicStream(t *testing.T) {
	rec := measureAnthropic(anthropicStream+"event: content_block_delta\n"+`data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"late"}}`+"\n\n", true)
	if rec.Error != nil || rec.OutputTokens != 6 || rec.TokenSource != record.SourceUsage || rec.PromptTokens != 12 ||
		rec.FinishReason != "length" || rec.ResponseID != "msg_1" || len(rec.Chunks) != 3 {
		t.Fatalf("%+v (error %v)", rec, rec.Error)
	}
	if rec.CachedTokens != 3 {
		t.Errorf("%d cached prompt tokens, want the 3 read from the cache", rec.CachedTokens)
	}
	if rec.Chunks[0].Kind != record.ChunkReasoning || rec.ReasoningTokens == 0 || rec.ReasoningTokens >= rec.OutputTokens {
		t.Errorf("chunks %+v, reasoning %d", rec.Chunks, rec.ReasoningTokens)
	}
}

// TestAnthropicFailures: an error event mid-stream, a stream cut before
// message_stop, and an error body are failures of their kinds.
func TestAnthropicFailures(t *testing.T) {
	cut := anthropicStream[:strings.Index(anthropicStream, "event: message_delta")]
	for _, c := range []struct {
		name, body string
		stream     bool
		kind, msg  string
	}{
		{"overloaded mid-stream", cut + "event: error\n" + `data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n\n", true, record.KindServerError, "Overloaded"},
		{"cut before message_stop", cut, true, record.KindStreamCut, ""},
		{"a whole error", `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: required"}}`, false, record.KindServerError, "max_tokens: required"},
	} {
		rec := measureAnthropic(c.body, c.stream)
		if rec.Error == nil || rec.Error.Kind != c.kind || !strings.Contains(rec.Error.Message, c.msg) {
			t.Errorf("%s: error %+v, want %s with %q", c.name, rec.Error, c.kind, c.msg)
		}
	}
}

// TestAnthropicWholeMessage: a whole message's blocks are one chunk with
// every token, tool input counted as a tool call.
func TestAnthropicWholeMessage(t *testing.T) {
	rec := measureAnthropic(`{"id":"msg_2","type":"message","role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"t","name":"get","input":{"q":"x"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":11}}`, false)
	if rec.Error != nil || rec.OutputTokens != 11 || rec.PromptTokens != 5 || rec.FinishReason != "tool_calls" || len(rec.Chunks) != 1 {
		t.Fatalf("%+v (error %v)", rec, rec.Error)
	}
}

// TestAnthropicRequest: the request carries Anthropic's headers (its key
// as x-api-key, never as a bearer token), its budget always (the API
// requires one), system messages in its system field, and no ignore_eos.
func TestAnthropicRequest(t *testing.T) {
	type received struct {
		header http.Header
		body   map[string]any
	}
	requests := make(chan received, 1) // the handler's goroutine hands them over
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		requests <- received{r.Header.Clone(), body}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(anthropicStream))
	}))
	defer srv.Close()
	c, err := NewHTTP(HTTPConfig{URL: srv.URL, API: APIAnthropic, Stream: true, APIKey: "sk-ant", IgnoreEOS: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rec record.Record
	c.Do(context.Background(), &Request{Model: "claude", Messages: []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}}, &rec)
	if rec.Error != nil || !strings.HasSuffix(c.Endpoint(), "/v1/messages") {
		t.Fatalf("%v at %s", rec.Error, c.Endpoint())
	}
	req := <-requests
	got, body := req.header, req.body
	if got.Get("x-api-key") != "sk-ant" || got.Get("anthropic-version") != anthropicVersion || got.Get("Authorization") != "" {
		t.Errorf("headers %v", got)
	}
	msgs, _ := body["messages"].([]any)
	if body["max_tokens"] != float64(anthropicDefaultBudget) || body["system"] != "be brief" || len(msgs) != 1 || body["ignore_eos"] != nil {
		t.Errorf("body %v", body)
	}
}

// TestDetectAnthropic: a server that lists models as Anthropic's API does
// (asked with its headers; a bearer token is refused) is spoken to in it.
func TestDetectAnthropic(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("x-api-key") != "k" || r.Header.Get("anthropic-version") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
			return
		}
		w.Write([]byte(`{"data":[{"type":"model","id":"claude-x","display_name":"X"}],"has_more":false,"first_id":"claude-x","last_id":"claude-x"}`))
	}))
	defer srv.Close()
	api, why, err := Detect(context.Background(), srv.URL, "k", nil)
	if err != nil || api != APIAnthropic || !strings.Contains(why, "Anthropic") {
		t.Fatalf("api %q (%s), %v", api, why, err)
	}
	ids, err := ListModels(context.Background(), srv.URL, APIAnthropic, "k", nil)
	if err != nil || len(ids) != 1 || ids[0] != "claude-x" {
		t.Errorf("models %v, %v", ids, err)
	}
	if _, err := ListModels(context.Background(), srv.URL, APIChat, "k", nil); err == nil || !bytes.Contains([]byte(err.Error()), []byte("401")) {
		t.Errorf("listing with a bearer token: %v", err)
	}
}
