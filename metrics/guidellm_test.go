package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestGuideLLMCountsIterations: without usage GuideLLM counts one token a
// streamed iteration, never a tokenizer's count: a response of 3 chunks
// that a tokenizer counted as 10 tokens has n = 3, so its TPOT is
// (last - start) / 3 and its ITL (last - first) / 2.
func TestGuideLLMCountsIterations(t *testing.T) {
	r := rec(0, []int64{100, 200, 300}, []int{1, 1, 1})
	r.TokenSource, r.OutputTokens, r.TokenizerTokens, r.UsageTokens = record.SourceTokenizer, 10, 10, 0
	ss := NewSteps(Targets{}).WithConvention(ConventionGuideLLM)
	ss.Add(r)
	s := ss.Summaries()[0]
	near(t, "TPOT", s.TPOT.Mean, 100)
	near(t, "ITL", s.ITL.Mean, 100)
	if s.TPOT.Count != 3 || s.ITL.Count != 2 {
		t.Errorf("weights %d and %d, want 3 and 2", s.TPOT.Count, s.ITL.Count)
	}
}

// TestGuideLLMRatesMergeNearMoments: token events a tenth of a
// millisecond apart or less are one moment to GuideLLM. Two requests'
// only tokens at 100 and 100.05 ms, in a window 0-100.05 ms: one moment
// of 2 tokens at 0.1 s, so the rates are 0 (from 0 to 0.05 s) and 40
// (0.05 s to 0.1), each over 0.05 s; kept apart, the second token alone
// would read 40,000 tokens/s over 25 us.
func TestGuideLLMRatesMergeNearMoments(t *testing.T) {
	a := rec(0, []int64{100}, []int{1})
	b := rec(0, []int64{0}, []int{1})
	b.Chunks[0].At = 100_050_000 // ns
	b.First, b.Last, b.Done = b.Chunks[0].At, b.Chunks[0].At, b.Chunks[0].At
	ss := NewSteps(Targets{}).WithConvention(ConventionGuideLLM)
	ss.Add(a)
	ss.Add(b)
	d := ss.Summaries()[0].RequestTPS
	near(t, "mean", d.Mean, 20)
	near(t, "max", d.Max, 40)
	if d.Count != 2 || d.P50 != 0 || d.Min != 0 {
		t.Errorf("rates %+v: want 2 tokens, median and min 0", d)
	}
}
