package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// reasoned makes r's first k chunks reasoning and its chunks at tool
// tool calls, counting their tokens.
func reasoned(r *record.Record, k int, tool ...int) *record.Record {
	for i := 0; i < k; i++ {
		r.Chunks[i].Kind = record.ChunkReasoning
		r.ReasoningTokens += r.Chunks[i].Tokens
	}
	for _, i := range tool {
		r.Chunks[i].Kind = record.ChunkToolCall
		r.ToolCallTokens += r.Chunks[i].Tokens
	}
	return r
}

func TestReasoningFigures(t *testing.T) {
	// reasoning at 100, 110 (2 tokens), 120 ms; the answer at 150, 160,
	// 170 ms, the last a tool call of 2 tokens
	r := reasoned(rec(0, []int64{100, 110, 120, 150, 160, 170}, []int{1, 2, 1, 1, 1, 2}), 3, 5)
	s := NewAccumulator(Targets{})
	s.Add(r)
	s.Add(rec(1000, []int64{40, 50}, []int{1, 1})) // no reasoning: its TTFA is its TTFT
	sum := s.Summary()
	g := sum.Reasoning
	if g == nil {
		t.Fatal("no reasoning figures")
	}
	if g.Requests != 1 || g.ToolCallRequests != 1 || g.ReasoningTokens != 4 || g.AnswerTokens != 6 || g.ToolCallTokens != 2 {
		t.Errorf("counts %+v", *g)
	}
	near(t, "TTFR", g.TTFR.Mean, 100)
	if g.TTFR.Count != 1 {
		t.Errorf("TTFR of %d requests, want 1", g.TTFR.Count)
	}
	near(t, "TTFA min", g.TTFA.Min, 40)
	near(t, "TTFA max", g.TTFA.Max, 150)
	near(t, "reasoning TPS", g.ReasoningTPS.Mean, 3/0.020)
	near(t, "answer TPS max", g.AnswerTPS.Max, 3/0.020)
	near(t, "answer TPS min", g.AnswerTPS.Min, 1/0.010)
	near(t, "answer system TPS", g.AnswerSystemTPS, 6/sum.DurationS)
	// TTFT and the output count still take every token
	near(t, "TTFT min", sum.TTFT.Min, 40)
	near(t, "output tokens", float64(sum.OutputTokens), 10)
}

func TestNoReasoningFigures(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(rec(0, []int64{40, 50}, []int{1, 1}))
	if g := s.Summary().Reasoning; g != nil {
		t.Errorf("reasoning figures %+v for a step without reasoning", *g)
	}
}

// TestGenAIPerfReadsNoReasoning: GenAI-Perf ignores reasoning_content, so
// under its convention TTFT is the answer's and its count leaves the
// reasoning out.
func TestGenAIPerfReadsNoReasoning(t *testing.T) {
	r := reasoned(rec(0, []int64{100, 110, 120, 150, 160}, []int{1, 1, 1, 1, 1}), 3)
	s := NewAccumulator(Targets{})
	s.setConvention(ConventionGenAIPerf)
	s.Add(r)
	sum := s.Summary()
	near(t, "TTFT", sum.TTFT.Mean, 150)
	near(t, "ITL", sum.ITL.Mean, 10)
}
