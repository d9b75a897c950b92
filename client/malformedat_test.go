package client

import (
	"context"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestMalformedNamesItsPlace: a malformed event or line is named by its
// place in the stream, counting those that carried no token (a role
// chunk, a blank line) as the reader of the raw stream would.
func TestMalformedNamesItsPlace(t *testing.T) {
	role := "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"
	ndjson := func(content string) string {
		return `{"model":"m","message":{"role":"assistant","content":"` + content + `"},"done":false}` + "\n"
	}
	for _, c := range []struct {
		name, api, ctype, body, want string
	}{
		{"SSE", APIChat, "text/event-stream", role + chunk("a") + "data: {\"choices\":[\n\n", "event 3: "},
		{"NDJSON", APIOllama, "application/x-ndjson", ndjson("") + "\n" + ndjson("a") + "{\"message\":\n", "line 4: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newClient(t, rawServer(t, 200, c.ctype, c.body), func(h *HTTPConfig) { h.API = c.api })
			var rec record.Record
			cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 8}, &rec)
			if rec.Error == nil || rec.Error.Kind != record.KindMalformed || !strings.HasPrefix(rec.Error.Message, c.want) {
				t.Errorf("error %+v, want one beginning %q", rec.Error, c.want)
			}
			if rec.OutputTokens != 1 {
				t.Errorf("%d tokens before it, want 1", rec.OutputTokens)
			}
		})
	}
}

// TestWholeAnswerBound: a whole answer of the bound's length is read; one
// byte more is refused, naming the bound (shortened here).
func TestWholeAnswerBound(t *testing.T) {
	defer func(n int) { maxWholeAnswer = n }(maxWholeAnswer)
	maxWholeAnswer = 4096
	answer := `{"choices":[{"message":{"content":"hi"},"finish_reason":"x"}],"usage":{"prompt_tokens":3,"completion_tokens":1}`
	for _, extra := range []int{0, 1} {
		body := answer + strings.Repeat(" ", maxWholeAnswer+extra-len(answer)-1) + "}"
		rec := &record.Record{}
		Measure(strings.NewReader(body), nil, rec, record.NewClock(), APIChat, false, MeasureOptions{})
		if extra == 0 && (!rec.OK() || rec.OutputTokens != 1 || rec.FinishReason != "x") {
			t.Errorf("an answer of %d bytes: %+v, finish %q", len(body), rec.Error, rec.FinishReason)
		}
		if extra == 1 && (rec.OK() || !strings.Contains(rec.Error.Message, "whole answer longer than 4096 bytes")) {
			t.Errorf("an answer of %d bytes: %+v", len(body), rec.Error)
		}
	}
}

// TestUsageGoingBack: a chunk whose cumulative usage is below the one
// before streamed no tokens, never a negative count (what the live view
// and the token callbacks were told).
func TestUsageGoingBack(t *testing.T) {
	body := "data: {\"choices\":[{\"delta\":{\"content\":\"ab\"}}],\"usage\":{\"completion_tokens\":2}}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"c\"}}],\"usage\":{\"completion_tokens\":1}}\n\n" +
		"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	rec := &record.Record{}
	Measure(strings.NewReader(body), nil, rec, record.NewClock(), APIChat, true, MeasureOptions{})
	if rec.Streamed != 2 {
		t.Errorf("%d tokens streamed, want 2 then none", rec.Streamed)
	}
}

// TestOneLetterDoneReason: Ollama's done_reason is the finish reason,
// whatever its length.
func TestOneLetterDoneReason(t *testing.T) {
	body := `{"message":{"content":"a"},"done":false}` + "\n" + `{"message":{"content":""},"done":true,"done_reason":"x","eval_count":1}` + "\n"
	rec := &record.Record{}
	Measure(strings.NewReader(body), nil, rec, record.NewClock(), APIOllama, true, MeasureOptions{})
	if !rec.OK() || rec.FinishReason != "x" {
		t.Errorf("%+v, finish %q", rec.Error, rec.FinishReason)
	}
}
