package client

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// oneLineAtATime reads its text a line a Read, as a server that flushes
// each line.
type oneLineAtATime struct{ lines []string }

func (r *oneLineAtATime) Read(p []byte) (int, error) {
	if len(r.lines) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.lines[0])
	r.lines[0] = r.lines[0][n:]
	if r.lines[0] == "" {
		r.lines = r.lines[1:]
	}
	return n, nil
}

// steppedStamps stamps each read 1 ms after the one before.
func steppedStamps(base time.Time) func() time.Time {
	k := 0
	return func() time.Time {
		k++
		return base.Add(time.Duration(k) * time.Millisecond)
	}
}

// TestNDJSONStampsAndEnd: NDJSON lines are stamped by the stream's own
// stamps, and the answer ends at its done line, not at the stream's end;
// a done line without a reason is a stop.
func TestNDJSONStampsAndEnd(t *testing.T) {
	clock := record.NewClock()
	body := &oneLineAtATime{lines: []string{`{"response":"a","done":false}` + "\n", `{"response":"b","done":false}` + "\n",
		`{"response":"","done":true,"eval_count":2}` + "\n", "\n", "\n"}}
	rec := &record.Record{}
	Measure(body, steppedStamps(clock.Time(0)), rec, clock, APIOllama, true, MeasureOptions{})
	if !rec.OK() || rec.FinishReason != "stop" || len(rec.Chunks) != 2 {
		t.Fatalf("%+v, finish %q, %d chunks", rec.Error, rec.FinishReason, len(rec.Chunks))
	}
	if rec.Chunks[1].At-rec.Chunks[0].At != int64(time.Millisecond) || rec.Done != rec.Sent+rec.Chunks[1].At+int64(time.Millisecond) {
		t.Errorf("chunks at %d and %d, done %d: want 1 ms apart and done at the next line", rec.Chunks[0].At, rec.Chunks[1].At, rec.Done-rec.Sent)
	}
}

// TestResponsesFailures: a failed response is a failure with or without
// an error object; an error object in any event is one.
func TestResponsesFailures(t *testing.T) {
	for _, body := range []string{
		"data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\"}}\n\n",
		"data: {\"type\":\"response.in_progress\",\"response\":{\"error\":{\"message\":\"quota\"}}}\n\n",
	} {
		if rec := measured(APIResponses, true, body); rec.Error == nil || rec.Error.Kind != record.KindServerError {
			t.Errorf("%q: %+v", body, rec.Error)
		}
	}
}

// TestSmallestValues: a one-byte tool-call argument is a tool call; an
// SGLang text that did not grow adds no token and is no error; SSE's
// "data: " of nothing is an empty line of data.
func TestSmallestValues(t *testing.T) {
	tool := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	if rec := measured(APIAnthropic, true, tool); len(rec.Chunks) != 1 || rec.Chunks[0].Kind != record.ChunkToolCall {
		t.Errorf("one byte of tool input: %+v", rec.Chunks)
	}
	sglang := "data: {\"text\":\"ab\",\"meta_info\":{}}\n\ndata: {\"text\":\"ab\",\"meta_info\":{}}\n\ndata: {\"text\":\"abc\",\"meta_info\":{\"finish_reason\":{\"type\":\"stop\"}}}\n\ndata: [DONE]\n\n"
	if rec := measured(APISGLang, true, sglang); !rec.OK() || rec.OutputTokens != 2 {
		t.Errorf("an SGLang text that stayed: %d tokens, %+v", rec.OutputTokens, rec.Error)
	}
	empty := "data: \n\n" + "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	if rec := measured(APIChat, true, empty); !rec.OK() || rec.OutputTokens != 1 {
		t.Errorf("an empty data line: %d tokens, %+v", rec.OutputTokens, rec.Error)
	}
}

// TestStatusRange: only 2xx answers are answers; a 300 is a failure.
func TestStatusRange(t *testing.T) {
	cl := newClient(t, rawServer(t, 300, "application/json", `{}`), nil)
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 2}, &rec)
	if rec.Error == nil || rec.Error.Kind != record.KindHTTPStatus {
		t.Errorf("HTTP 300: %+v", rec.Error)
	}
}

// TestManySiblings: objects side by side are no deeper than one: 200 of
// them in a list pass the nesting bound of 64.
func TestManySiblings(t *testing.T) {
	body := `{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}],"extra":[` + strings.TrimSuffix(strings.Repeat(`{"a":{}},`, 200), ",") + `]}`
	if rec := measured(APIChat, false, body); !rec.OK() {
		t.Errorf("%+v", rec.Error)
	}
}

// TestTokenTextSeen: a client's token observer gets each chunk's text.
func TestTokenTextSeen(t *testing.T) {
	body := chunk("He") + chunk("llo") + "data: [DONE]\n\n"
	var texts []string
	cl := newClient(t, rawServer(t, 200, "text/event-stream", body), func(c *HTTPConfig) {
		c.OnToken = func(_ int64, _ int, s string) { texts = append(texts, s) }
	})
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 8}, &rec)
	if strings.Join(texts, "|") != "He|llo" {
		t.Errorf("texts %q", texts)
	}
}

// TestUsageAtItsBound: usage is believed up to 4 tokens a byte of text,
// 16 a chunk and 64 more; past that it is suspect.
func TestUsageAtItsBound(t *testing.T) {
	for usage, believed := range map[string]bool{"84": true, "85": false} {
		body := chunk("a") + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":" + usage + "}}\n\ndata: [DONE]\n\n"
		rec := measured(APIChat, true, body)
		if (rec.UsageSuspect == "") != believed || rec.CachedTokens != 0 {
			t.Errorf("usage %s for one chunk of 1 byte: suspect %q, cached %d", usage, rec.UsageSuspect, rec.CachedTokens)
		}
	}
}

// TestTokenizerCountingAsManyAsChunks: a tokenizer that counts as many
// tokens as chunks came is the count's source.
func TestTokenizerCountingAsManyAsChunks(t *testing.T) {
	body := chunk("a") + chunk("b") + chunk("c") + "data: [DONE]\n\n"
	rec := &record.Record{}
	Measure(strings.NewReader(body), nil, rec, record.NewClock(), APIChat, true, MeasureOptions{Tokenizer: TextCounter{Name: "t", Count: func(string) int { return 3 }}})
	if rec.TokenSource != record.SourceTokenizer || rec.OutputTokens != 3 {
		t.Errorf("source %q, %d tokens", rec.TokenSource, rec.OutputTokens)
	}
}

// TestTranscriptionFormFile: the audio goes as the form's file, of its
// type.
func TestTranscriptionFormFile(t *testing.T) {
	b, ctype, err := multipartBody(map[string]any{"model": "m"}, Media{MIME: "audio/wav", Data: []byte("RIFF")})
	if err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(ctype)
	r := multipart.NewReader(bytes.NewReader(b), params["boundary"])
	part, err := r.NextPart()
	if err != nil || part.FormName() != "file" || part.Header.Get("Content-Type") != "audio/wav" {
		t.Errorf("first part %v: %v", part.Header, err)
	}
}

// TestHiddenReasoningAtTheBound: usage of 2^30 tokens, all hidden
// reasoning within a budget of 2^30, is believed: the bound on any count
// is 2^30 itself.
func TestHiddenReasoningAtTheBound(t *testing.T) {
	body := chunk("a") + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":1073741824,\"completion_tokens_details\":{\"reasoning_tokens\":1073741823}}}\n\ndata: [DONE]\n\n"
	rec := &record.Record{MaxTokens: 1 << 30}
	Measure(strings.NewReader(body), nil, rec, record.NewClock(), APIChat, true, MeasureOptions{})
	if rec.UsageSuspect != "" || rec.OutputTokens != 1<<30 {
		t.Errorf("%d tokens, suspect %q", rec.OutputTokens, rec.UsageSuspect)
	}
}

// TestErrorsOfEveryShape: a top-level error object in a Responses event
// fails it; lists side by side are no deeper than one.
func TestErrorsOfEveryShape(t *testing.T) {
	if rec := measured(APIResponses, true, "data: {\"error\":{\"message\":\"overloaded\"}}\n\n"); rec.Error == nil || !strings.Contains(rec.Error.Message, "overloaded") {
		t.Errorf("a top-level error: %+v", rec.Error)
	}
	body := `{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}],"extra":[` + strings.TrimSuffix(strings.Repeat(`[[]],`, 200), ",") + `]}`
	if rec := measured(APIChat, false, body); !rec.OK() {
		t.Errorf("200 lists in a list: %+v", rec.Error)
	}
}

// TestNDJSONOneLetterDone: a done line's one-letter reason ends the
// answer there, as any reason does.
func TestNDJSONOneLetterDone(t *testing.T) {
	clock := record.NewClock()
	body := &oneLineAtATime{lines: []string{`{"response":"a","done":false}` + "\n", `{"response":"","done":true,"done_reason":"x","eval_count":1}` + "\n", "\n", "\n"}}
	rec := &record.Record{}
	Measure(body, steppedStamps(clock.Time(0)), rec, clock, APIOllama, true, MeasureOptions{})
	if !rec.OK() || rec.FinishReason != "x" || rec.Done != rec.Sent+rec.Chunks[0].At+int64(time.Millisecond) {
		t.Errorf("%+v, finish %q, done %d after the chunk", rec.Error, rec.FinishReason, rec.Done-rec.Sent-rec.Chunks[0].At)
	}
}
