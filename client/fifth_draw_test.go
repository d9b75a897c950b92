package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestOneByteKinds: a text of one byte is a kind's as a longer one is: a
// reasoning delta of one byte makes a reasoning chunk, and a function
// call's arguments of one byte a tool-call chunk.
func TestOneByteKinds(t *testing.T) {
	for _, c := range []struct {
		name, api, body string
		kinds           []record.ChunkKind
	}{
		{"chat reasoning", APIChat, sseOf(`{"choices":[{"delta":{"reasoning_content":"a"}}]}`, `{"choices":[{"delta":{"content":"b"}}]}`, "[DONE]"),
			[]record.ChunkKind{record.ChunkReasoning, record.ChunkAnswer}},
		{"responses tool call", APIResponses, sseOf(`{"type":"response.function_call_arguments.delta","delta":"{"}`, `{"type":"response.completed","response":{"status":"completed"}}`),
			[]record.ChunkKind{record.ChunkToolCall}},
	} {
		rec := measured(c.api, true, c.body)
		var got []record.ChunkKind
		for _, ch := range rec.Chunks {
			got = append(got, ch.Kind)
		}
		if !rec.OK() || !slices.Equal(got, c.kinds) {
			t.Errorf("%s: %v, kinds %v, want %v", c.name, rec.Error, got, c.kinds)
		}
	}
}

// TestOneByteReasoningCounted: a tokenizer counts a reasoning text of one
// byte too. Here "a" is 5 tokens and each "b" one: 5 of the 15 are
// reasoning, not the byte's share of them (1 of 11 bytes).
func TestOneByteReasoningCounted(t *testing.T) {
	weighted := TextCounter{Name: "weighted", Count: func(s string) int { return 5*strings.Count(s, "a") + strings.Count(s, "b") }}
	rec := &record.Record{}
	body := `data: {"choices":[{"delta":{"reasoning_content":"a"}}]}` + "\n\n" + chunk("bbbbbbbbbb") + "data: [DONE]\n\n"
	Measure(strings.NewReader(body), nil, rec, record.NewClock(), APIChat, true, MeasureOptions{Tokenizer: weighted})
	if !rec.OK() || rec.OutputTokens != 15 || rec.ReasoningTokens != 5 {
		t.Errorf("%v: %d tokens, %d reasoning; want 15 and 5", rec.Error, rec.OutputTokens, rec.ReasoningTokens)
	}
}

// TestTGIBudgetOnlyWhenGiven: TGI's parameters carry max_new_tokens only
// for a budget asked for; 0 is the server's own default.
func TestTGIBudgetOnlyWhenGiven(t *testing.T) {
	params := tgiAPI.body(&HTTPConfig{}, &Request{Prompt: "p"})["parameters"].(map[string]any)
	if _, ok := params["max_new_tokens"]; ok {
		t.Errorf("a budget of 0 sent: %v", params)
	}
	params = tgiAPI.body(&HTTPConfig{}, &Request{Prompt: "p", MaxTokens: 4})["parameters"].(map[string]any)
	if params["max_new_tokens"] != 4 {
		t.Errorf("a budget of 4 sent as %v", params["max_new_tokens"])
	}
}

// TestEverySuccessStatus: every 2xx status is a success, 299 included;
// 300 is not.
func TestEverySuccessStatus(t *testing.T) {
	statuses := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(<-statuses)
		io.WriteString(w, chunk("a")+"data: [DONE]\n\n")
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, nil)
	for status, ok := range map[int]bool{200: true, 299: true, 300: false} {
		statuses <- status
		var rec record.Record
		c.Do(context.Background(), &Request{Model: "m", Prompt: "hi", MaxTokens: 1}, &rec)
		if rec.OK() != ok || rec.Status != status {
			t.Errorf("status %d: ok %v (%v), want %v", status, rec.OK(), rec.Error, ok)
		}
	}
}

// TestEventOfTheLongestLength: an event of exactly maxEvent bytes of data
// (two data lines, joined by their newline) is read; a byte more is not.
func TestEventOfTheLongestLength(t *testing.T) {
	head := `{"choices":[{"delta":{"content":"a"}}],`
	for _, extra := range []int{0, 1} {
		pad := maxEvent - len(head) - 1 - len(`"pad":""}`) + extra
		body := "data: " + head + "\ndata: \"pad\":\"" + strings.Repeat("x", pad) + "\"}\n\ndata: [DONE]\n\n"
		rec := measured(APIChat, true, body)
		if rec.OK() != (extra == 0) {
			t.Errorf("an event of maxEvent + %d bytes: ok %v (%v)", extra, rec.OK(), rec.Error)
		}
	}
}
