package client

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

func reasoningChunk(text string) string {
	return fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"reasoning_content\":%q}}]}\n\n", text)
}

func toolChunk(args string) string {
	return fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":%q}}]}}]}\n\n", args)
}

// TestReasoningCounted: reasoning chunks, answer chunks and tool-call
// deltas are told apart, and the reasoning count comes from the server's
// usage when it gives one, from a client tokenizer's count of the
// reasoning text, or from the reasoning chunks, in that order.
func TestReasoningCounted(t *testing.T) {
	words := TextCounter{Name: "words", Count: func(s string) int { return len(strings.Fields(s)) }}
	usage := func(n, reasoning int) string {
		return fmt.Sprintf("data: {\"choices\":[],\"usage\":{\"completion_tokens\":%d,\"completion_tokens_details\":{\"reasoning_tokens\":%d}}}\n\n", n, reasoning)
	}
	three := reasoningChunk("hm ") + reasoningChunk("so ") + reasoningChunk("ok ")
	cases := []struct {
		name                     string
		body                     string
		tokenizer                TextCounter
		kinds                    []record.ChunkKind
		tokens                   []int
		output, reasoning, tools int
		source                   string
	}{
		{"chunks only", three + chunk("Yes") + chunk("."), TextCounter{},
			[]record.ChunkKind{1, 1, 1, 0, 0}, []int{1, 1, 1, 1, 1}, 5, 3, 0, record.SourceChunks},
		{"usage with reasoning tokens", three + chunk("Yes") + chunk(".") + usage(12, 9), TextCounter{},
			[]record.ChunkKind{1, 1, 1, 0, 0}, []int{3, 3, 3, 2, 1}, 12, 9, 0, record.SourceUsage},
		{"usage total only", reasoningChunk("aaaa") + chunk("bbbb") + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":8}}\n\n", TextCounter{},
			[]record.ChunkKind{1, 0}, []int{4, 4}, 8, 4, 0, record.SourceUsage},
		{"usage reasoning above the total", three + chunk("Yes") + usage(4, 9), TextCounter{},
			[]record.ChunkKind{1, 1, 1, 0}, []int{1, 1, 1, 1}, 4, 4, 0, record.SourceUsage}, // the answer chunk keeps its token, so the chunks sum to the output; the count is the server's
		{"a tokenizer", reasoningChunk("one two three ") + reasoningChunk("four ") + chunk("five six"), words,
			[]record.ChunkKind{1, 1, 0}, []int{2, 2, 2}, 6, 4, 0, record.SourceTokenizer},
		{"a tool call", reasoningChunk("hm") + toolChunk(`{"a":`) + toolChunk(`1}`), TextCounter{},
			[]record.ChunkKind{1, 2, 2}, []int{1, 1, 1}, 3, 1, 2, record.SourceChunks},
		{"reasoning and answer in one chunk", reasoningChunk("hm") + "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"so\",\"content\":\"Yes\"}}]}\n\n", TextCounter{},
			[]record.ChunkKind{1, 0}, []int{1, 1}, 2, 1, 0, record.SourceChunks},
		{"hidden reasoning", chunk("Hi") + chunk("!") + usage(42, 40), TextCounter{},
			[]record.ChunkKind{0, 0}, []int{41, 1}, 42, 40, 0, record.SourceUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clock := record.NewClock()
			reads := int64(0)
			stamp := func() time.Time { reads++; return clock.Time(reads * int64(time.Millisecond)) }
			rec := &record.Record{}
			Measure(strings.NewReader(c.body+"data: [DONE]\n\n"), stamp, rec, clock, APIChat, true, MeasureOptions{Tokenizer: c.tokenizer})
			if rec.Error != nil {
				t.Fatal(rec.Error)
			}
			if len(rec.Chunks) != len(c.kinds) {
				t.Fatalf("%d chunks, want %d", len(rec.Chunks), len(c.kinds))
			}
			for i, ch := range rec.Chunks {
				if ch.Kind != c.kinds[i] || ch.Tokens != c.tokens[i] {
					t.Errorf("chunk %d: kind %d with %d tokens, want kind %d with %d", i, ch.Kind, ch.Tokens, c.kinds[i], c.tokens[i])
				}
			}
			if rec.OutputTokens != c.output || rec.ReasoningTokens != c.reasoning || rec.ToolCallTokens != c.tools || rec.TokenSource != c.source {
				t.Errorf("output %d (%s), reasoning %d, tool calls %d; want %d (%s), %d, %d",
					rec.OutputTokens, rec.TokenSource, rec.ReasoningTokens, rec.ToolCallTokens, c.output, c.source, c.reasoning, c.tools)
			}
		})
	}
}
