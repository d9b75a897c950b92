package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestBatchedWhileLate: chunks read together count as the client's own
// batching when they came while a request was more than 1 ms past due and
// not yet sent. Times in ms after a send at 5 s: A is due at 0 and sent at
// 5 (late), C due at 10 and sent at 10.5 (0.5 ms: not late), D due at 20
// and sent at 30. B, sent on time at 0, reads 2 chunks at 3 ms (1 batched,
// in A's lateness), 3 at 8 (2, none late), 2 at 10.2 (1, C was not late),
// 2 at 20 (1, D's lateness begins), 2 at 30 (1, D was sent): 6 batched, 2
// of them while late.
func TestBatchedWhileLate(t *testing.T) {
	const t0, base = int64(1_700_000_000e9), 5000 * ms
	at := func(msAfter float64) int64 { return base + int64(msAfter*1e6) }
	late := func(due, sent float64) *record.Record {
		r := away(5000, 100)
		r.Scheduled, r.Sent = at(due), at(sent)
		r.First, r.Last, r.Done = r.Sent+100*ms, r.Sent+100*ms, r.Sent+100*ms
		return r
	}
	b := &record.Record{V: 1, Stream: true, T0: t0, Scheduled: base, Sent: base, TokenSource: record.SourceUsage}
	for _, a := range []struct {
		ms     float64
		chunks int
	}{{2, 1}, {3, 2}, {8, 3}, {10.2, 2}, {20, 2}, {30, 2}} {
		for range a.chunks {
			b.Chunks = append(b.Chunks, record.Chunk{At: at(a.ms) - base, Tokens: 1})
		}
	}
	b.OutputTokens, b.UsageTokens = len(b.Chunks), len(b.Chunks)
	b.First, b.Last, b.Done = base+b.Chunks[0].At, base+b.Chunks[len(b.Chunks)-1].At, base+b.Chunks[len(b.Chunks)-1].At
	s := NewAccumulator(Targets{})
	for _, r := range []*record.Record{late(0, 5), b, late(10, 10.5), late(20, 30)} {
		s.Add(r)
	}
	sum := s.Summary()
	if sum.BatchedChunks != 6 || sum.BatchedWhileLate != 2 {
		t.Errorf("batched %d, while late %d; want 6 and 2", sum.BatchedChunks, sum.BatchedWhileLate)
	}
	if again := s.Summary(); again.BatchedWhileLate != 2 {
		t.Errorf("a second summary: while late %d", again.BatchedWhileLate)
	}
	none := NewAccumulator(Targets{})
	none.Add(b)
	if got := none.Summary().BatchedWhileLate; got != 0 {
		t.Errorf("no request late: %d while late", got)
	}
}
