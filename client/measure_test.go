package client

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// FuzzMeasure: any response body, for every API and with or without
// streaming, gives a record whose figures hold together (times in order,
// no negative counts), or a failure; never a panic.
func FuzzMeasure(f *testing.F) {
	f.Add([]byte(chunk("a")+chunk("bc")+`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}`+"\n\ndata: [DONE]\n\n"), uint8(0))
	f.Add([]byte(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":-4}}`), uint8(1))
	f.Add([]byte(`{"choices":[{"text":"hi"}],"usage":{"completion_tokens":9}}`), uint8(3))
	f.Add([]byte(reasoningChunk("hm")+toolChunk("{}")+chunk("a")+`data: {"choices":[],"usage":{"completion_tokens":7,"completion_tokens_details":{"reasoning_tokens":9}}}`+"\n\ndata: [DONE]\n\n"), uint8(0))
	f.Add([]byte(`{"message":{"thinking":"hm"},"done":false}`+"\n"+`{"message":{"content":"a"},"done":true,"eval_count":2}`+"\n"), uint8(6))
	f.Add([]byte(`{"message":{"content":"a"},"done":false}`+"\n"+`{"done":true,"eval_count":2,"prompt_eval_count":1,"eval_duration":5}`+"\n"), uint8(6))
	f.Add([]byte(chunk("a")+"data: {\"choices\":"+strings.Repeat("[", 200_000)+"\n\n"), uint8(0))
	f.Add([]byte(`{"message":`+strings.Repeat(`{"a":`, 200_000)+"\n"), uint8(6))
	f.Add([]byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":3,\"output_tokens\":2,\"output_tokens_details\":{\"reasoning_tokens\":1}}}}\n\n"), uint8(4))
	f.Add([]byte(`{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"reasoning","content":[{"type":"reasoning_text","text":"hm"}]},{"type":"function_call","arguments":"{}"},{"type":"message","content":[{"type":"output_text","text":"a"}]}],"usage":{"output_tokens":4}}`), uint8(5))
	f.Add([]byte("data: {\"content\":\"a\",\"stop\":false}\n\ndata: {\"content\":\"\",\"stop\":true,\"tokens_predicted\":3,\"tokens_evaluated\":2,\"stop_type\":\"limit\",\"timings\":{\"prompt_ms\":1.5,\"predicted_ms\":1e400}}\n\n"), uint8(8))
	f.Add([]byte("data: {\"token\":{\"text\":\"\",\"special\":true},\"generated_text\":null}\n\ndata: {\"token\":{\"text\":\"b\"},\"generated_text\":\"b\",\"details\":{\"finish_reason\":\"length\",\"generated_tokens\":2}}\n\n"), uint8(10))
	f.Add([]byte("data: {\"text\":\"ab\",\"meta_info\":{\"completion_tokens\":2}}\n\ndata: {\"text\":\"a\",\"meta_info\":{\"completion_tokens\":3}}\n\ndata: [DONE]\n\n"), uint8(12))
	f.Add([]byte(anthropicStream), uint8(14))
	f.Add([]byte(`{"id":"msg_1","type":"message","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"tool_use","input":{}},{"type":"text","text":"a"}],"stop_reason":"max_tokens","usage":{"input_tokens":3,"output_tokens":4}}`), uint8(15))
	f.Add([]byte(`{"data":[{"embedding":[0.1,0.2]},{"embedding":"AAAAAA=="},{"embedding":[1]}],"usage":{"prompt_tokens":6}}`), uint8(17))
	f.Add([]byte(`{"data":[]}`), uint8(16))
	f.Add([]byte(`{"results":[{"index":0,"relevance_score":0.5},{"index":1,"relevance_score":0.1}],"usage":{"total_tokens":9}}`), uint8(19))
	f.Add([]byte(`data: {"type":"transcript.text.delta","delta":"Hi"}`+"\n\n"+`data: {"type":"transcript.text.done","text":"Hi","usage":{"type":"tokens","input_tokens":4,"output_tokens":1}}`+"\n\n"), uint8(20))
	f.Add([]byte(`{"text":"Hello","usage":{"type":"duration","seconds":3}}`), uint8(21))
	// every API, streamed (even modes) and whole (odd ones)
	f.Fuzz(func(t *testing.T, body []byte, mode uint8) {
		api, stream := APIs[int(mode)/2%len(APIs)], mode%2 == 0
		clock := record.NewClock()
		reads := int64(0)
		stamp := func() time.Time { reads++; return clock.Time(reads * int64(time.Millisecond)) }
		rec := &record.Record{}
		outputless := protocolOf(api).outputless
		if outputless {
			rec.Inputs = 1 + int(mode)%3 // as the request sent would set it
		}
		Measure(bytes.NewReader(body), stamp, rec, clock, api, stream, MeasureOptions{})
		if rec.OutputTokens < 0 || rec.PromptTokens < 0 || rec.UsageTokens < 0 {
			t.Fatalf("negative count: %+v", rec)
		}
		if rec.ReasoningTokens < 0 || rec.ToolCallTokens < 0 || rec.ReasoningTokens+rec.ToolCallTokens > rec.OutputTokens {
			t.Fatalf("%d reasoning and %d tool-call tokens of %d: %+v", rec.ReasoningTokens, rec.ToolCallTokens, rec.OutputTokens, rec)
		}
		for i, at := range rec.OtherEvents {
			if at < 0 || (i > 0 && at < rec.OtherEvents[i-1]) || rec.Sent+at > rec.Done {
				t.Fatalf("other event %d at %d: %+v", i, at, rec)
			}
		}
		last := int64(0)
		for i, c := range rec.Chunks {
			if c.At < last || c.Tokens < 0 {
				t.Fatalf("chunk %d: %+v after %d", i, c, last)
			}
			last = c.At
		}
		// a request that generates nothing succeeds with an answer for each
		// of its inputs, and no tokens
		if outputless {
			if rec.OK() && (len(rec.Chunks) > 0 || rec.OutputTokens != 0 || rec.First != 0 || rec.Done < rec.Sent) {
				t.Fatalf("an outputless success with tokens or out of order: %+v", rec)
			}
			return
		}
		// a success streamed tokens in order, or (nothing to show: a stop
		// string matched at once) rests on the server's usage
		streamed := len(rec.Chunks) > 0 && rec.OutputTokens > 0 && rec.First >= rec.Sent && rec.Last >= rec.First && rec.Done >= rec.Last
		silent := len(rec.Chunks) == 0 && rec.TokenSource == record.SourceUsage && (rec.OutputTokens == 0 || rec.First == rec.Done && rec.Last == rec.Done)
		if rec.OK() && !streamed && !silent {
			t.Fatalf("a success that does not hold together: %+v", rec)
		}
	})
}

// A stream of more events than a record keeps chunks for folds the rest
// into its last chunk: the count, the first and the last token exact, and
// memory bounded by MaxChunks, not by what the server sends.
func TestLongStreamFolded(t *testing.T) {
	n := record.MaxChunks + 2500
	var body strings.Builder
	for i := 0; i < n; i++ {
		body.WriteString(chunk("ab"))
	}
	body.WriteString("data: [DONE]\n\n")
	clock := record.NewClock()
	rec := &record.Record{}
	Measure(strings.NewReader(body.String()), nil, rec, clock, APIChat, true, MeasureOptions{})
	sum := 0
	for _, c := range rec.Chunks {
		sum += c.Tokens
	}
	if !rec.OK() || rec.OutputTokens != n || sum != n || len(rec.Chunks) != record.MaxChunks || rec.ChunksFolded != 2500 ||
		rec.Sent+rec.Chunks[len(rec.Chunks)-1].At != rec.Last {
		t.Errorf("%d events: ok %v, %d output tokens, chunks %d carrying %d, %d folded", n, rec.OK(), rec.OutputTokens, len(rec.Chunks), sum, rec.ChunksFolded)
	}
}
