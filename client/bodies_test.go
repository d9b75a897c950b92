package client

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/record"
)

// measured is a body as the client reads it, through Measure.
func measured(api string, stream bool, body string) *record.Record {
	rec := &record.Record{}
	Measure(strings.NewReader(body), nil, rec, record.NewClock(), api, stream, MeasureOptions{})
	return rec
}

// sseOf is a body of the events given, each a data line.
func sseOf(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	return b.String()
}

// TestBodiesOfEveryAPI: what each API's answers say, read as the server
// wrote them: tokens, finish reasons in OpenAI's names, errors by kind
// and message, chunk kinds.
func TestBodiesOfEveryAPI(t *testing.T) {
	cases := []struct {
		name, api string
		stream    bool
		body      string
		tokens    int
		finish    string
		kind      string // failure kind, "" for none
		inMessage string
		prompt    int
		kinds     []record.ChunkKind // of the chunks; nil: every chunk the answer
	}{
		{name: "anthropic end_turn", api: APIAnthropic, stream: true, body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", tokens: 1, finish: "stop", prompt: 3},
		{name: "anthropic stop_sequence", api: APIAnthropic, stream: false, body: `{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"stop_sequence","usage":{"input_tokens":3,"output_tokens":2}}`, tokens: 2, finish: "stop", prompt: 3},
		{name: "anthropic other stop reason", api: APIAnthropic, stream: false, body: `{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"refusal","usage":{"output_tokens":2}}`, tokens: 2, finish: "refusal"},
		{name: "anthropic tool input", api: APIAnthropic, stream: true, body: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":1}\"}}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":4}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", tokens: 4, finish: "tool_calls", kinds: []record.ChunkKind{record.ChunkToolCall}},
		{name: "ollama generate", api: APIOllama, stream: true, body: `{"response":"a","done":false}` + "\n" + `{"response":"b","done":false}` + "\n" + `{"response":"","done":true,"done_reason":"stop","eval_count":2}` + "\n", tokens: 2, finish: "stop"},
		{name: "ollama error mid-stream", api: APIOllama, stream: true, body: `{"response":"a","done":false}` + "\n" + `{"error":"model unloaded"}` + "\n", tokens: 1, kind: record.KindServerError, inMessage: "model unloaded"},
		{name: "llama.cpp slot fields", api: APILlamaCpp, stream: true, body: sseOf(`{"content":"a","id_slot":0,"index":0,"stop":false}`, `{"content":"b","stop":true,"stop_type":"limit","tokens_predicted":2}`), tokens: 2},
		{name: "responses reasoning", api: APIResponses, stream: true, body: sseOf(`{"type":"response.reasoning_text.delta","delta":"think"}`, `{"type":"response.output_text.delta","delta":"hi"}`,
			`{"type":"response.completed","response":{"status":"completed","usage":{"output_tokens":2}}}`), tokens: 2, finish: "stop", kinds: []record.ChunkKind{record.ChunkReasoning, record.ChunkAnswer}},
		{name: "responses failed", api: APIResponses, stream: true, body: sseOf(`{"type":"response.output_text.delta","delta":"hi"}`, `{"type":"response.failed","response":{"status":"failed","error":{"message":"overloaded"}}}`), tokens: 1, kind: record.KindServerError, inMessage: "overloaded"},
		{name: "responses error event", api: APIResponses, stream: true, body: sseOf(`{"type":"error","message":"bad request"}`), kind: record.KindServerError, inMessage: "bad request"},
		{name: "sglang error", api: APISGLang, stream: false, body: `{"error":{"message":"no such model"}}`, kind: record.KindServerError, inMessage: "no such model"},
		{name: "sglang id and text", api: APISGLang, stream: false, body: `{"text":"abc","meta_info":{"id":"r1","finish_reason":{"type":"stop"},"prompt_tokens":3,"completion_tokens":3}}`, tokens: 3, finish: "stop", prompt: 3},
		{name: "tgi generate", api: APITGI, stream: false, body: `{"generated_text":"abc","details":{"finish_reason":"length","generated_tokens":3}}`, tokens: 3, finish: "length"},
		{name: "tgi error", api: APITGI, stream: true, body: sseOf(`{"error":"Input validation error","error_type":"validation"}`), kind: record.KindServerError, inMessage: "Input validation error"},
		{name: "chat control character", api: APIChat, stream: true, body: sseOf("{\"choices\":[{\"delta\":{\"content\":\"a\x01\"}}]}"), kind: record.KindMalformed, inMessage: "control character"},
		{name: "chat bad number", api: APIChat, stream: true, body: sseOf(`{"choices":[{"delta":{"content":"a"}}],"x":-}`), kind: record.KindMalformed, inMessage: "bad number"},
		{name: "chat null count", api: APIChat, stream: true, body: sseOf(`{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":null}}`, "[DONE]"), tokens: 1, finish: "stop", prompt: 4},
		{name: "chat usage without an output count", api: APIChat, stream: true, body: sseOf(`{"choices":[{"delta":{"content":"a"}}]}`, `{"choices":[{"delta":{"content":"b"},"finish_reason":"stop"}]}`, `{"choices":[],"usage":{"prompt_tokens":4}}`, "[DONE]"), tokens: 2, finish: "stop", prompt: 4},
		{name: "transcription streamed", api: APITranscription, stream: true, body: sseOf(`{"type":"transcript.text.delta","delta":"Hi"}`, `{"type":"transcript.text.delta","delta":" there"}`,
			`{"type":"transcript.text.done","text":"Hi there","usage":{"type":"tokens","input_tokens":4,"output_tokens":2}}`), tokens: 2, prompt: 4},
		{name: "transcription whole", api: APITranscription, stream: false, body: `{"text":"Hello","usage":{"type":"tokens","input_tokens":5,"output_tokens":1}}`, tokens: 1, prompt: 5},
		{name: "ollama chat", api: APIOllama, stream: false, body: `{"message":{"role":"assistant","content":"ab"},"done":true,"done_reason":"stop","eval_count":2,"prompt_eval_count":3}`, tokens: 2, finish: "stop", prompt: 3},
		{name: "chat empty answer", api: APIChat, stream: true, body: sseOf(`{"choices":[{"delta":{"role":"assistant"},"finish_reason":"stop"}]}`, "[DONE]"), kind: record.KindEmpty},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := measured(c.api, c.stream, c.body)
			kind := ""
			if rec.Error != nil {
				kind = rec.Error.Kind
				if !strings.Contains(rec.Error.Message, c.inMessage) {
					t.Errorf("message %q, want %q in it", rec.Error.Message, c.inMessage)
				}
			}
			if kind != c.kind {
				t.Fatalf("failure %+v, want kind %q", rec.Error, c.kind)
			}
			if rec.OutputTokens != c.tokens || (c.finish != "" && rec.FinishReason != c.finish) {
				t.Errorf("%d tokens, finish %q; want %d and %q", rec.OutputTokens, rec.FinishReason, c.tokens, c.finish)
			}
			if rec.PromptTokens != c.prompt {
				t.Errorf("%d prompt tokens, want %d", rec.PromptTokens, c.prompt)
			}
			var got, want []record.ChunkKind
			for _, ch := range rec.Chunks {
				got = append(got, ch.Kind)
				want = append(want, record.ChunkAnswer)
			}
			if c.kinds != nil {
				want = c.kinds
			}
			if !slices.Equal(got, want) {
				t.Errorf("chunk kinds %v, want %v", got, want)
			}
		})
	}
}

// TestRequestBodies: what each API's request says of sampling and media.
func TestRequestBodies(t *testing.T) {
	hot, cold := 0.7, 0.0
	a := anthropicAPI.body(&HTTPConfig{Temperature: &hot}, &Request{Prompt: "p", MaxTokens: 4})
	if a["temperature"] != 0.7 {
		t.Errorf("anthropic %v", a)
	}
	for temp, want := range map[*float64][2]any{&hot: {0.7, true}, &cold: {nil, false}} {
		params := tgiAPI.body(&HTTPConfig{Temperature: temp}, &Request{Prompt: "p"})["parameters"].(map[string]any)
		if params["temperature"] != want[0] || params["do_sample"] != want[1] {
			t.Errorf("tgi at %v: %v", *temp, params)
		}
	}
	parts := map[string]string{}
	for _, m := range []Media{
		{MIME: "audio/mpeg", Data: []byte("a")}, {MIME: "audio/x-wav", Data: []byte("w")}, {MIME: "audio/flac", Data: []byte("f")},
		{MIME: "video/x-msvideo", Data: []byte("v")}, {MIME: "image/png", URL: "http://h/i.png"},
	} {
		p := mediaPart(m)
		typ := p["type"].(string)
		switch typ {
		case "input_audio":
			parts[m.MIME] = p["input_audio"].(map[string]any)["format"].(string)
		case "video_url":
			parts[m.MIME] = p["video_url"].(map[string]any)["url"].(string)
		case "image_url":
			parts[m.MIME] = p["image_url"].(map[string]any)["url"].(string)
		}
	}
	want := map[string]string{"audio/mpeg": "mp3", "audio/x-wav": "wav", "audio/flac": "flac", "video/x-msvideo": "data:video/x-msvideo;base64,dg==", "image/png": "http://h/i.png"}
	for k, v := range want {
		if parts[k] != v {
			t.Errorf("%s: %q, want %q", k, parts[k], v)
		}
	}
	if content.KindAudio == "" {
		t.Fatal("no audio kind")
	}
	for _, c := range []struct {
		v    any
		want string
	}{{"s", "s"}, {true, "true"}, {3, "3"}, {0.25, "0.25"}, {[]int{1, 2}, "[1,2]"}, {func() {}, "0x"}} {
		if got := formValue(c.v); !strings.HasPrefix(got, c.want) {
			t.Errorf("form value of %v: %q, want %q", c.v, got, c.want)
		}
	}
}

// TestJSONNumbers: the numbers a skipped field may hold are JSON's.
func TestJSONNumbers(t *testing.T) {
	for in, ok := range map[string]bool{"0": true, "-0": true, "12": true, "1.5": true, "-1.5e+10": true, "2E-3": true, "1e400": true,
		"-": false, "01": false, "1.": false, ".5": false, "1e": false, "1e+": false, "+1": false, "1-2": false, "": false, "--1": false} {
		if jsonNumber([]byte(in)) != ok {
			t.Errorf("%q: %v", in, !ok)
		}
	}
}

// TestApportionEdges: tokens shared over chunks by their text: all to
// reasoning chunks when there are only those; one a chunk when the count
// is below the chunks; a reasoning count fitted between the reasoning
// chunks and what leaves one for each other chunk.
func TestApportionEdges(t *testing.T) {
	tokensOf := func(cs []record.Chunk) []int {
		var out []int
		for _, c := range cs {
			out = append(out, c.Tokens)
		}
		return out
	}
	r := record.ChunkReasoning
	allThinking := []record.Chunk{{Kind: r}, {Kind: r}}
	apportionKinds(allThinking, []int{1, 3}, 8, fitReasoning(allThinking, 8, 2))
	if got := tokensOf(allThinking); got[0]+got[1] != 8 || got[1] <= got[0] {
		t.Errorf("only reasoning chunks: %v, want 8 by their text", got)
	}
	if n := fitReasoning(allThinking, 8, 2); n != 2 {
		t.Errorf("fit with only reasoning chunks: %d", n)
	}
	few := []record.Chunk{{}, {}, {}}
	apportion(few, []int{5, 5, 5}, []int{0, 1, 2}, 2)
	if got := tokensOf(few); got[0] != 1 || got[1] != 1 || got[2] != 1 {
		t.Errorf("2 tokens over 3 chunks: %v, want one each", got)
	}
	apportion(few, []int{5, 5, 5}, nil, 9) // no chunks to share over
	mixed := []record.Chunk{{Kind: r}, {}, {}}
	for _, c := range []struct{ reasoning, want int }{{0, 1}, {5, 4}, {-1, -1}} {
		if got := fitReasoning(mixed, 6, c.reasoning); got != c.want {
			t.Errorf("fit %d reasoning of 6 over 1 reasoning and 2 answer chunks: %d, want %d", c.reasoning, got, c.want)
		}
	}
}

// TestErrorBodies: a failed response's message is its OpenAI error, or
// its text cut at 200 bytes.
func TestErrorBodies(t *testing.T) {
	if got := errorBody(strings.NewReader(`{"error":{"message":"slow down"}}`)); got != ": slow down" {
		t.Errorf("%q", got)
	}
	long := strings.Repeat("x", 300)
	if got := errorBody(strings.NewReader(long)); got != ": "+long[:200]+"..." {
		t.Errorf("%d bytes: %q", len(got), got)
	}
	if got := errorBody(strings.NewReader("  \n")); got != "" {
		t.Errorf("blank: %q", got)
	}
}

// TestEventTooLong: an event past the bound fails the answer as
// malformed, for SSE and NDJSON.
func TestEventTooLong(t *testing.T) {
	huge, half := strings.Repeat("a", maxEvent+10), strings.Repeat("b", maxEvent/2)
	for _, c := range []struct{ api, body string }{
		{APIChat, "data: {\"choices\":[{\"delta\":{\"content\":\"" + huge + "\"}}]}\n\n"},
		{APIChat, "data: " + half + "\ndata: " + half + "\ndata: " + half + "\n\n"}, // lines of one event, together past it
		{APIOllama, `{"response":"` + huge + `","done":false}` + "\n"},
	} {
		rec := measured(c.api, true, c.body)
		if rec.Error == nil || rec.Error.Kind != record.KindMalformed || !strings.Contains(rec.Error.Message, "longer than") {
			t.Errorf("%s: %+v", c.api, rec.Error)
		}
	}
}

// TestObserversSeeEveryChunk: a live observer sees each token-bearing
// chunk with its tokens, as the record keeps them; the answer text is the
// answer's, its reasoning left out.
func TestObserversSeeEveryChunk(t *testing.T) {
	body := "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"He\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"llo\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	chunks, tokens := 0, 0
	rec := &record.Record{}
	Measure(strings.NewReader(body), nil, rec, record.NewClock(), APIChat, true, MeasureOptions{OnChunk: func(r *record.Record, n int) {
		chunks++
		tokens += n
		if r != rec {
			t.Error("another record")
		}
	}})
	if chunks != 3 || tokens != 3 || len(rec.Chunks) != 3 {
		t.Errorf("observer saw %d chunks of %d tokens; the record %d", chunks, tokens, len(rec.Chunks))
	}
	var answer strings.Builder
	cl := newClient(t, rawServer(t, 200, "text/event-stream", body), nil)
	var r record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 8, Answer: &answer}, &r)
	if answer.String() != "Hello" {
		t.Errorf("answer %q, want the answer's text alone", answer.String())
	}
}
