package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestVerdictIsTheTablesPercentile: a per-request target's value is the
// figure the tables show at the target's share, from the same kind of
// histogram: p99 of TTFT, TPOT and E2E latency for 99%, p1 of request
// TPS (a rate: higher is better); values chosen off a histogram bucket's
// edge, where a latency kept in a rate's histogram would read other.
func TestVerdictIsTheTablesPercentile(t *testing.T) {
	targets := Targets{Share: 0.99, List: []Target{
		{Name: TargetTTFT, Want: 1e6}, {Name: TargetTPOT, Want: 1e6}, {Name: TargetE2E, Want: 1e6}, {Name: TargetRequestTPS, Want: 0.001}}}
	ss := NewSteps(targets).WithPercentiles([]float64{1})
	for i := range 200 {
		// TTFT 1234.567891 ms + 0.7 ms a request, then 39 gaps of
		// 3.210987 ms + 0.1 ms a request: spread over many buckets, so
		// that the 99th percentile is a bucket's top below the largest
		// value, where histograms of other scales part
		r := &record.Record{V: 1, Stream: true, Sent: int64(i) * 10 * ms, TokenSource: record.SourceUsage}
		r.Scheduled = r.Sent
		ttft, gap := int64(1234567891)+int64(i)*700000, int64(3210987)+int64(i)*100000
		for k := range 40 {
			r.Chunks = append(r.Chunks, record.Chunk{At: ttft + int64(k)*gap, Tokens: 1})
		}
		r.OutputTokens, r.UsageTokens = 40, 40
		r.First, r.Last = r.Sent+r.Chunks[0].At, r.Sent+r.Chunks[39].At
		r.Done = r.Last
		ss.Add(r)
	}
	sum := ss.Summaries()[0]
	want := map[string]float64{TargetTTFT: sum.TTFT.P99, TargetTPOT: sum.TPOT.P99, TargetE2E: sum.E2E.P99, TargetRequestTPS: sum.RequestTPS.Percentiles["p1"]}
	if len(sum.Targets) != 4 {
		t.Fatalf("%d verdicts", len(sum.Targets))
	}
	for _, v := range sum.Targets {
		if w := want[v.Name]; v.Got != w || w == 0 {
			t.Errorf("%s: verdict at %v, the table's percentile %v", v.Name, v.Got, w)
		}
		if !v.Pass || v.Met != 1 || v.Need != 0.99 {
			t.Errorf("%s: %+v, want met by all", v.Name, v)
		}
	}
}
