package client

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// Servers that lie in their usage or stream past their end: each case
// made a success of figures no server could have produced.
func TestLyingSources(t *testing.T) {
	delta := func(s string) string {
		return fmt.Sprintf("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":%q}\n\n", s)
	}
	completed := func(out, reasoning int) string {
		return fmt.Sprintf("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":3,\"output_tokens\":%d,\"output_tokens_details\":{\"reasoning_tokens\":%d}}}}\n\n", out, reasoning)
	}
	eight := strings.Repeat(chunk("a"), 8)
	cases := []struct {
		name      string
		api       string
		stream    bool
		budget    int
		body      string
		output    int // the tokens counted
		source    string
		suspect   bool // usage kept but not believed
		reasoning int
		chunks    int
	}{
		{"reasoning that is a lie bounded by the budget", APIChat, true, 8,
			eight + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":1000000000,\"completion_tokens_details\":{\"reasoning_tokens\":1000000000}}}\n\ndata: [DONE]\n\n",
			8, record.SourceChunks, true, 0, 8},
		{"hidden reasoning within the budget is believed", APIChat, true, 100,
			eight + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":90,\"completion_tokens_details\":{\"reasoning_tokens\":82}}}\n\ndata: [DONE]\n\n",
			90, record.SourceUsage, false, 82, 8},
		{"usage below the chunks (TGI's 1 for 8 events)", APIChat, true, 0,
			eight + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
			8, record.SourceChunks, true, 0, 8},
		{"hidden reasoning bounded by a budget of one token", APIChat, true, 1,
			chunk("a") + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":1000,\"completion_tokens_details\":{\"reasoning_tokens\":999}}}\n\ndata: [DONE]\n\n",
			1, record.SourceChunks, true, 0, 1},
		{"usage below the chunks of a stream folded past its chunks' bound", APIChat, true, 0,
			strings.Repeat(chunk("a"), record.MaxChunks+10) + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
			record.MaxChunks + 10, record.SourceChunks, true, 0, record.MaxChunks},
		{"a Responses stream goes on after response.completed", APIResponses, true, 0,
			delta("Hi") + delta(" there") + completed(2, 0) + strings.Repeat(delta("x"), 100) + completed(999, 0),
			2, record.SourceUsage, false, 0, 2},
		{"response.completed before the deltas", APIResponses, true, 0,
			completed(2, 0) + delta("Hi") + delta(" there"),
			2, record.SourceUsage, false, 0, 0},
		{"a whole Responses answer with reasoning above its usage", APIResponses, false, 0,
			`{"object":"response","status":"completed","output":[{"type":"reasoning","content":[{"type":"reasoning_text","text":"hm"}]},{"type":"message","content":[{"type":"output_text","text":"yes"}]}],"usage":{"output_tokens":9,"output_tokens_details":{"reasoning_tokens":20}}}`,
			9, record.SourceUsage, false, 9, 1}, // the chunk carries the 9 tokens; the reasoning count is the server's, within the output
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clock := record.NewClock()
			rec := &record.Record{MaxTokens: c.budget}
			Measure(strings.NewReader(c.body), nil, rec, clock, c.api, c.stream, MeasureOptions{})
			sum := 0
			for _, ch := range rec.Chunks {
				sum += ch.Tokens
			}
			if !rec.OK() || rec.OutputTokens != c.output || rec.TokenSource != c.source || (rec.UsageSuspect != "") != c.suspect ||
				rec.ReasoningTokens != c.reasoning || len(rec.Chunks) != c.chunks || (len(rec.Chunks) > 0 && sum != rec.OutputTokens) {
				t.Errorf("ok %v (%v), %d tokens from %s, suspect %q, reasoning %d, %d chunks carrying %d",
					rec.OK(), rec.Error, rec.OutputTokens, rec.TokenSource, rec.UsageSuspect, rec.ReasoningTokens, len(rec.Chunks), sum)
			}
		})
	}
}
