package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestProtocolScanners: each API's reader on one event or whole answer,
// the fields it must take from it and the ones it must leave: tool calls
// in every form an API sends them (and none when the arguments are
// empty), usage, finish reasons, errors (and an error of null that is
// none), and trailing bytes refused.
func TestProtocolScanners(t *testing.T) {
	cases := []struct {
		api, name, in string
		err           bool
		text          string
		tool, usage   bool
		completion    int
		finish        string
		errMsg        string // want an error event with this message
		empty         bool   // a token with no text
		id            string
	}{
		{api: APIAnthropic, name: "whole message with a tool use", in: `{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":1}}],"stop_reason":"tool_use"}`, tool: true, finish: "tool_calls"},
		{api: APILlamaCpp, name: "trailing bytes", in: `{"content":"a","stop":false} x`, err: true},
		{api: APILlamaCpp, name: "error object with more fields", in: `{"error":{"code":500,"message":"boom","type":"server_error"}}`, errMsg: "boom"},
		{api: APILlamaCpp, name: "last event", in: `{"content":"","stop":true,"stop_type":"limit","tokens_predicted":7}`, usage: true, completion: 7, finish: "length"},
		{api: APIOllama, name: "tool calls", in: `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":false}`, tool: true},
		{api: APIOllama, name: "error", in: `{"error":"model 'x' not found"}`, errMsg: "model 'x' not found"},
		{api: APIRerank, name: "trailing bytes", in: `{"results":[]} x`, err: true},
		{api: APIResponses, name: "whole response", in: `{"id":"resp_1","object":"response","status":"completed","error":null,"output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]}]}`, text: "hi", finish: "stop", id: "resp_1"},
		{api: APIResponses, name: "whole response cut at its budget", in: `{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}`, finish: "length"},
		{api: APIResponses, name: "event cut at its budget", in: `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}}`, finish: "length"},
		{api: APIResponses, name: "function call arguments", in: `{"object":"response","status":"completed","output":[{"type":"function_call","arguments":"{\"a\":1}"}]}`, tool: true, finish: "stop"},
		{api: APIResponses, name: "function call of no arguments", in: `{"object":"response","status":"completed","output":[{"type":"function_call","arguments":""}]}`, finish: "stop"},
		{api: APIResponses, name: "function call of a one-byte argument", in: `{"object":"response","status":"completed","output":[{"type":"function_call","arguments":"1"}]}`, tool: true, finish: "stop"},
		{api: APIResponses, name: "incomplete for another reason", in: `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[]}}`, finish: "incomplete"},
		{api: APITGI, name: "final event with usage and no reason", in: `{"token":{"id":1,"text":"a","special":false},"generated_text":"a","details":{"generated_tokens":1}}`, text: "a", usage: true, completion: 1, finish: "stop"},
		{api: APITGI, name: "whole /generate answer", in: `{"generated_text":"hi there"}`, text: "hi there"},
		{api: APIOllama, name: "no tool calls", in: `{"message":{"role":"assistant","content":"a","tool_calls":[]},"done":false}`, text: "a"},
		{api: APIResponses, name: "arguments delta", in: `{"type":"response.function_call_arguments.delta","delta":"{\"a"}`, tool: true},
		{api: APIResponses, name: "empty arguments delta", in: `{"type":"response.function_call_arguments.delta","delta":""}`},
		{api: APISGLang, name: "text so far", in: `{"text":"Hello","meta_info":{"completion_tokens":2}}`, text: "Hello", usage: true, completion: 2},
		{api: APITGI, name: "last token", in: `{"token":{"id":2,"text":"","special":true},"generated_text":"ab","details":{"finish_reason":"eos_token","generated_tokens":3}}`, usage: true, completion: 3, finish: "eos_token", empty: true},
		{api: APITranscription, name: "error", in: `{"error":{"message":"bad audio"}}`, errMsg: "bad audio"},
		{api: APITranscription, name: "whole answer", in: `{"text":"hi there","usage":{"type":"tokens","input_tokens":5,"output_tokens":2}}`, text: "hi there", usage: true, completion: 2, finish: "stop"},
		{api: APITranscription, name: "usage of seconds", in: `{"text":"hi","usage":{"type":"duration","seconds":3,"output_tokens":2}}`, text: "hi", finish: "stop"},
	}
	for _, c := range cases {
		t.Run(c.api+" "+c.name, func(t *testing.T) {
			var ci chunkInfo
			err := protocolOf(c.api).scanner(&streamState{})([]byte(c.in), &ci)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if c.err {
				return
			}
			if ci.text() != c.text || ci.toolCall != c.tool || ci.hasUsage != c.usage || ci.completion != c.completion || string(ci.finish) != c.finish || ci.emptyToken != c.empty {
				t.Errorf("text %q tool %v usage %v (%d) finish %q empty %v; want %q %v %v (%d) %q %v",
					ci.text(), ci.toolCall, ci.hasUsage, ci.completion, ci.finish, ci.emptyToken, c.text, c.tool, c.usage, c.completion, c.finish, c.empty)
			}
			if string(ci.id) != c.id {
				t.Errorf("response id %q, want %q", ci.id, c.id)
			}
			if ci.hasError != (c.errMsg != "") || (c.errMsg != "" && unquote(ci.errMsg) != c.errMsg) {
				t.Errorf("error %v %q, want %q", ci.hasError, ci.errMsg, c.errMsg)
			}
		})
	}
}

// TestRequestParts: a chat's media go in its last user message, after its
// text, the messages before it as they were; a rerank of one input scores
// it against itself; a transcription names what it was sent.
func TestRequestParts(t *testing.T) {
	png := Media{MIME: "image/png", Data: []byte{1}}
	msgs := []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "what is this?"}, {Role: "assistant", Content: "a"}}
	out, ok := withMedia(msgs, []Media{png}).([]any)
	if !ok || len(out) != 3 {
		t.Fatalf("messages %#v", out)
	}
	if m, ok := out[0].(Message); !ok || m != msgs[0] {
		t.Errorf("the system message became %#v", out[0])
	}
	user, ok := out[1].(map[string]any)
	if parts, _ := user["content"].([]any); !ok || user["role"] != "user" || len(parts) != 2 {
		t.Fatalf("the user message became %#v", out[1])
	}
	if parts := user["content"].([]any); parts[0].(map[string]any)["text"] != "what is this?" || parts[1].(map[string]any)["type"] != "image_url" {
		t.Errorf("parts %#v: want the text, then the image", parts)
	}
	if q, docs := rerankParts(&Request{Inputs: []string{"one"}}); q != "one" || len(docs) != 1 || docs[0] != "one" {
		t.Errorf("one input: query %q, documents %q", q, docs)
	}
	err := oneAudio([]Media{png, {MIME: "audio/wav", Data: []byte{1}}})
	if err == nil || !strings.Contains(err.Error(), "2 media of which 1 audio") {
		t.Errorf("an image beside the audio: %v", err)
	}
}

// TestCumulativeUsageInEveryChunk: a server that puts its running usage
// in every chunk (vLLM's continuous_usage_stats) gives each chunk the
// tokens its count rose by, not the running total.
func TestCumulativeUsageInEveryChunk(t *testing.T) {
	usage := func(content string, n int) string {
		return fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"content\":%q}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":%d}}\n\n", content, n)
	}
	body := usage("a", 1) + usage("bc", 3) + usage("d", 4) +
		"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\ndata: [DONE]\n\n"
	c := newClient(t, rawServer(t, 200, "text/event-stream", body), nil)
	var rec record.Record
	c.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 8}, &rec)
	var got []int
	for _, ch := range rec.Chunks {
		got = append(got, ch.Tokens)
	}
	if !rec.OK() || rec.OutputTokens != 4 || !slices.Equal(got, []int{1, 2, 1}) {
		t.Errorf("record %v: %d tokens in chunks of %v; want 4 in chunks of [1 2 1]", rec.Error, rec.OutputTokens, got)
	}
}

// TestLlamaTimingsKeptInRange: llama.cpp's timings become the record's
// server timing; a negative or absurd one is left out.
func TestLlamaTimingsKeptInRange(t *testing.T) {
	for _, c := range []struct {
		in           string
		prompt, eval int64
	}{
		{`{"content":"","stop":true,"timings":{"prompt_ms":12.5,"predicted_ms":40}}`, 12_500_000, 40_000_000},
		{`{"content":"","stop":true,"timings":{"prompt_ms":-5,"predicted_ms":2e13}}`, 0, 0},
	} {
		st := &streamState{}
		var ci chunkInfo
		if err := protocolOf(APILlamaCpp).scanner(st)([]byte(c.in), &ci); err != nil {
			t.Fatal(err)
		}
		if st.srv.PromptEvalNS != c.prompt || st.srv.EvalNS != c.eval {
			t.Errorf("%s: timings %+v, want prompt %d eval %d ns", c.in, st.srv, c.prompt, c.eval)
		}
	}
}
