package metrics

import (
	"math"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// genaiPerfStep adds records to a step under GenAI-Perf's convention.
func genaiPerfStep(recs ...*record.Record) Summary {
	ss := NewSteps(Targets{}).WithConvention(ConventionGenAIPerf)
	for _, r := range recs {
		ss.Add(r)
	}
	return ss.Summaries()[0]
}

// nsRecord is a record sent at 5 s whose chunks came at the given ns
// after it, with their tokens (from usage).
func nsRecord(at []int64, tokens []int) *record.Record {
	r := &record.Record{V: 1, Stream: true, T0: 1_700_000_000e9, Sent: 5e9, TokenSource: record.SourceUsage}
	for i := range at {
		r.Chunks = append(r.Chunks, record.Chunk{At: at[i], Tokens: tokens[i]})
		r.OutputTokens += tokens[i]
	}
	r.UsageTokens = r.OutputTokens
	r.First, r.Last = r.Sent+at[0], r.Sent+at[len(at)-1]
	r.Done = r.Last
	return r
}

// TestGenAIPerfRoundsHalfToEven: its ITL is Python's round of (latency -
// TTFT) / (n - 1) ns, which takes a half to the even neighbour: 5 ns over
// 2 gaps is 2 ns, 7 over 2 is 4 (half away from zero read 3 and 4).
func TestGenAIPerfRoundsHalfToEven(t *testing.T) {
	s := genaiPerfStep(nsRecord([]int64{1e6, 1e6 + 5}, []int{1, 2}), nsRecord([]int64{1e6, 1e6 + 7}, []int{1, 2}))
	if s.ITL.Count != 2 || s.ITL.Min != 2e-6 || s.ITL.Max != 4e-6 {
		t.Errorf("ITL %+v ms, want 2 and 4 ns", s.ITL)
	}
}

// TestGenAIPerfSingleResponse: a request whose text came in one response
// (or in several read at once, which GenAI-Perf merges) has no ITL and no
// output TPS per user, however many tokens it carried; tpsbench once gave
// it an ITL of 0.
func TestGenAIPerfSingleResponse(t *testing.T) {
	one := nsRecord([]int64{1e6}, []int{3})
	together := nsRecord([]int64{1e6, 1e6}, []int{1, 2})
	s := genaiPerfStep(one, together)
	if s.ITL.Count != 0 || s.RequestTPS.Count != 0 || s.TTFT.Count != 2 {
		t.Errorf("ITL %+v, TPS per user %+v, TTFT count %d", s.ITL, s.RequestTPS, s.TTFT.Count)
	}
}

// TestGenAIPerfTPSPerUser: its output TPS per user is 1 / the rounded ITL
// of each request: ITLs of 100 ms and 50 ms give 10 and 20 tokens/s, their
// mean 15 and numpy's population deviation 5.
func TestGenAIPerfTPSPerUser(t *testing.T) {
	a := nsRecord([]int64{1e8, 2e8, 3e8}, []int{1, 1, 1}) // (300 - 100) / 2 ms
	b := nsRecord([]int64{1e8, 1.5e8}, []int{1, 1})       // (150 - 100) / 1 ms
	s := genaiPerfStep(a, b)
	d := s.RequestTPS
	if d.Count != 2 || math.Abs(d.Mean-15) > 1e-9 || math.Abs(d.Stddev-5) > 1e-9 || d.Min != 10 || d.Max != 20 {
		t.Errorf("TPS per user %+v, want 10 and 20", d)
	}
}

// TestGenAIPerfRequestThroughput: it divides every request sent, one
// whose responses were all empty included, by its duration (first
// request to the last response with content): 3 requests over 0.3 s.
func TestGenAIPerfRequestThroughput(t *testing.T) {
	a := rec(0, []int64{100, 200, 300}, []int{1, 1, 1})
	b := rec(0, []int64{50}, []int{1})
	empty := &record.Record{V: 1, Stream: true, Sent: 0, Done: 80 * ms}
	empty.Fail(record.KindEmpty, "the response completed without an output token")
	s := genaiPerfStep(a, b, empty)
	near(t, "request throughput", s.RequestThroughput, 3/0.3)
}

// TestGenAIPerfOwnCase is GenAI-Perf's own test_openai_llm_profile_data
// (tests/test_llm_profile_data_parser.py): requests at 1 and 2 ns with
// responses with content at 5, 8, 12 and 7, 11, 15 ns, of 3 and 6 tokens
// by its tokenizer. Its expected values: latencies 11 and 13 ns, TTFT 4
// and 5, ITL 4 and 2 (3.5 and 1.6 rounded), output TPS per user 1 / 4 ns
// and 1 / 2 ns, output throughput 9 tokens / 14 ns, request throughput 2 /
// 14 ns.
func TestGenAIPerfOwnCase(t *testing.T) {
	mk := func(sent int64, at []int64, tokens int) *record.Record {
		r := &record.Record{V: 1, Stream: true, T0: 1_700_000_000e9, Sent: sent, TokenSource: record.SourceUsage}
		for _, a := range at {
			r.Chunks = append(r.Chunks, record.Chunk{At: a - sent, Tokens: 1})
		}
		r.OutputTokens, r.UsageTokens, r.TokenizerTokens = len(at), len(at), tokens
		r.First, r.Last, r.Done = at[0], at[len(at)-1], at[len(at)-1]
		return r
	}
	s := genaiPerfStep(mk(1, []int64{5, 8, 12}, 3), mk(2, []int64{7, 11, 15}, 6))
	inNS := func(d Dist) Dist { // ms to ns, so that the tolerance is a millionth of a ns
		return Dist{Mean: d.Mean * 1e6, Stddev: d.Stddev * 1e6, Min: d.Min * 1e6, P50: d.P50 * 1e6, P90: d.P90 * 1e6,
			P95: d.P95 * 1e6, P99: d.P99 * 1e6, P999: d.P999 * 1e6, Max: d.Max * 1e6, Count: d.Count}
	}
	checkDists(t, "genai-perf", []wantDist{
		{"E2E", inNS(s.E2E), 2, 12, 1, 12, 11 + 2*0.9, 11 + 2*0.99, 11, 13},
		{"TTFT", inNS(s.TTFT), 2, 4.5, 0.5, 4.5, 4.9, 4.99, 4, 5},
		{"ITL", inNS(s.ITL), 2, 3, 1, 3, 3.8, 3.98, 2, 4},
		{"TPS per user", s.RequestTPS, 2, 3.75e8, 1.25e8, 3.75e8, 2.5e8 + 2.5e8*0.9, 2.5e8 + 2.5e8*0.99, 2.5e8, 5e8},
	})
	near(t, "output throughput", s.SystemTPS, 9/14e-9)
	near(t, "request throughput", s.RequestThroughput, 2/14e-9)
}
