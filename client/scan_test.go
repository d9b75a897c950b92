package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

func TestScanChunk(t *testing.T) {
	cases := []struct {
		name                      string
		in                        string
		bearing, usage, tool, err bool
		text                      string
		completion, prompt        int
		finish, id                string
		errMsg                    string
		errHas                    string // in the scanner's error
		kind                      record.ChunkKind
		reasoning                 int
	}{
		{name: "chat delta", in: `{"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`, bearing: true, text: "Hi", id: "c1"},
		{name: "role only", in: `{"choices":[{"delta":{"role":"assistant","content":""}}]}`},
		{name: "null content", in: `{"choices":[{"delta":{"content":null}}]}`},
		{name: "reasoning", in: `{"choices":[{"delta":{"reasoning_content":"think"}}]}`, bearing: true, text: "think", kind: record.ChunkReasoning},
		{name: "reasoning field", in: `{"choices":[{"delta":{"reasoning":"think"}}]}`, bearing: true, text: "think", kind: record.ChunkReasoning},
		{name: "reasoning ends in the chunk", in: `{"choices":[{"delta":{"reasoning_content":"so","content":"Yes"}}]}`, bearing: true, text: "soYes"},
		{name: "reasoning tokens in usage", in: `{"choices":[],"usage":{"completion_tokens":12,"completion_tokens_details":{"reasoning_tokens":7}}}`, usage: true, completion: 12, reasoning: 7},
		{name: "tool call", in: `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]}}]}`, bearing: true, tool: true, kind: record.ChunkToolCall},
		{name: "legacy function call", in: `{"choices":[{"delta":{"function_call":{"name":"f","arguments":""}}}]}`, bearing: true, tool: true, kind: record.ChunkToolCall},
		{name: "empty tool calls", in: `{"choices":[{"delta":{"tool_calls":[]}}]}`},
		{name: "completion text", in: `{"choices":[{"text":" w\u00e9","finish_reason":"length"}]}`, bearing: true, text: " wé", finish: "length"},
		{name: "usage only", in: `{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":12,"total_tokens":17}}`, usage: true, completion: 12, prompt: 5},
		{name: "null usage", in: `{"choices":[{"delta":{"content":"a"}}],"usage":null}`, bearing: true, text: "a"},
		{name: "message", in: `{"choices":[{"message":{"role":"assistant","content":"whole"}}],"usage":{"completion_tokens":3}}`, bearing: true, usage: true, completion: 3, text: "whole"},
		{name: "error object", in: `{"error":{"message":"boom","type":"x"}}`, errMsg: "boom"},
		{name: "error string", in: `{"error":"boom"}`, errMsg: "boom"},
		{name: "numbers and nesting", in: ` {"a":[1,-2.5e3,true,false,null,{"b":[]}],"choices":[{"delta":{"content":"x"},"logprobs":{"c":[{"t":1}]}}]} `, bearing: true, text: "x"},
		{name: "escaped quote", in: `{"choices":[{"delta":{"content":"say \"hi\"\n"}}]}`, bearing: true, text: "say \"hi\"\n"},
		{name: "truncated", in: `{"choices":[{"delta":{"content":"x"`, err: true},
		{name: "not an object", in: `[1]`, err: true},
		{name: "trailing", in: `{} x`, err: true},
		{name: "count at the int32 bound", in: `{"usage":{"completion_tokens":2147483647}}`, usage: true, completion: 2147483647},
		{name: "count past any server's", in: `{"usage":{"completion_tokens":21474836480}}`, err: true, errHas: "number too large"},
		{name: "count not a number", in: `{"usage":{"completion_tokens":"5"}}`, err: true, errHas: "want a count"},
		{name: "truncated after a number", in: `{"x":12`, err: true},
		{name: "value that starts with no value", in: `{"a":x}`, err: true, errHas: "unexpected 'x'"},
		{name: "error of null", in: `{"choices":[{"delta":{"content":"x"}}],"error":null}`, bearing: true, text: "x"},
		{name: "unterminated string", in: `{"a":"abc`, err: true},
		{name: "literal at the very end", in: `{"a":true`, err: true, errHas: "want ',' or '}'"},
		{name: "literal cut short", in: `{"a":tr`, err: true, errHas: "want true"},
		{name: "wrong literal of the right length", in: `{"a":trux,"choices":[{"delta":{"content":"x"}}]}`, err: true, errHas: "want true"},
		{name: "bad literal", in: `{"a":tru}`, err: true},
		{name: "missing colon", in: `{"a" 1}`, err: true},
		{name: "nested to the limit", in: `{"a":` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `}`},
		{name: "nested past the limit", in: `{"a":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`, err: true},
		// 3.6 M levels overflowed the goroutine's stack, a fatal error
		{name: "nested 3.6 M levels", in: `{"a":` + strings.Repeat("[", 3_600_000), err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ci chunkInfo
			err := scanChunk([]byte(c.in), &ci)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if c.err {
				if err != nil && !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("err = %v, want it to say %q", err, c.errHas)
				}
				return
			}
			if ci.tokenBearing() != c.bearing || ci.hasUsage != c.usage || ci.toolCall != c.tool {
				t.Fatalf("bearing %v usage %v tool %v, want %v %v %v", ci.tokenBearing(), ci.hasUsage, ci.toolCall, c.bearing, c.usage, c.tool)
			}
			if ci.text() != c.text {
				t.Fatalf("text %q, want %q", ci.text(), c.text)
			}
			if ci.tokenBearing() && ci.kind() != c.kind {
				t.Fatalf("kind %d, want %d", ci.kind(), c.kind)
			}
			if ci.reasoning != c.reasoning {
				t.Fatalf("reasoning tokens %d, want %d", ci.reasoning, c.reasoning)
			}
			if ci.completion != c.completion || ci.prompt != c.prompt {
				t.Fatalf("usage %d/%d, want %d/%d", ci.prompt, ci.completion, c.prompt, c.completion)
			}
			if string(ci.finish) != c.finish || string(ci.id) != c.id {
				t.Fatalf("finish %q id %q", ci.finish, ci.id)
			}
			if (c.errMsg != "") != ci.hasError || (c.errMsg != "" && unquote(ci.errMsg) != c.errMsg) {
				t.Fatalf("error %v %q, want %q", ci.hasError, ci.errMsg, c.errMsg)
			}
		})
	}
}

func TestScanChunkAllocs(t *testing.T) {
	data := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]}`)
	var ci chunkInfo
	allocs := testing.AllocsPerRun(100, func() {
		if err := scanChunk(data, &ci); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("scanChunk allocates %.0f times per chunk, want 0", allocs)
	}
}

// FuzzScanChunk checks the scanner against encoding/json: it must never
// panic, and must accept every object encoding/json accepts.
func FuzzScanChunk(f *testing.F) {
	f.Add(`{"choices":[{"delta":{"content":"x"}}],"usage":{"completion_tokens":1}}`)
	f.Add(`{"error":{"message":"m"}}`)
	f.Add(`{"a":[1,{"b":"\u00e9\\"}],"c":null}`)
	f.Add(`{"choices":[{"delta":` + strings.Repeat(`{"a":[`, 40) + strings.Repeat(`]}`, 40) + `}]}`)
	f.Add(`{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`)
	f.Fuzz(func(t *testing.T, in string) {
		var ci chunkInfo
		err := scanChunk([]byte(in), &ci)
		if errors.Is(err, errTooDeep) {
			return // encoding/json nests up to 10,000 levels; a chunk may not
		}
		var obj map[string]any
		if json.Unmarshal([]byte(in), &obj) == nil && obj != nil && err != nil {
			// encoding/json accepts; so must we, unless counts overflow our int
			if _, isNum := obj["usage"]; !isNum {
				t.Fatalf("scanChunk rejects valid JSON %q: %v", in, err)
			}
		}
	})
}

func BenchmarkScanChunk(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]}`)
	var ci chunkInfo
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_ = scanChunk(data, &ci)
	}
}

// TestScanCutShort: an answer cut short anywhere is an unexpected end of
// input after its bytes, whatever was wanted next; one with a bad byte
// says where.
func TestScanCutShort(t *testing.T) {
	whole := `{"id":"x","choices":[{"delta":{"content":"hi"},"finish_reason":null}],"usage":{"completion_tokens":12,"x":[true,null,-1.5e3]}}`
	for n := 1; n < len(whole); n++ {
		var ci chunkInfo
		err := scanChunk([]byte(whole[:n]), &ci)
		if want := fmt.Sprintf("unexpected end of input after %d bytes", n); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("cut at %d (%q): %v, want %q", n, whole[:n], err, want)
		}
	}
	var ci chunkInfo
	if err := scanChunk([]byte(`{"id":"x",}`), &ci); err == nil || !strings.Contains(err.Error(), "want a key at byte 10") {
		t.Errorf("a bad byte: %v", err)
	}
}
