package metrics

import (
	"cmp"
	"math"
	"slices"

	"github.com/tpsbench/tpsbench/record"
)

// lateStartNS is how far past its due time a request must go out for
// the client to count as busy starting requests: less is the machine's
// scheduling.
const lateStartNS = 1e6

// maxLateMarks bounds the late starts and batched arrivals a step keeps
// (16 bytes each); past it, later ones go uncounted.
const maxLateMarks = 1 << 20

// lateStarts finds the chunks a client read together while it was late
// starting requests: at thousands of streams, sending a burst of requests
// keeps the client from reading the streams already running, and their
// chunks pile up into one read. Those batches are the client's, not the
// server's.
type lateStarts struct {
	late    [][2]int64 // [due, sent) of requests sent late, absolute ns
	batched [][2]int64 // arrivals of more than one chunk: when, and the chunks after the first
}

// started notes r's start, if it was late.
func (l *lateStarts) started(r *record.Record) {
	if r.Sent-r.Scheduled > lateStartNS && len(l.late) < maxLateMarks {
		l.late = append(l.late, [2]int64{r.Abs(r.Scheduled), r.Abs(r.Sent)})
	}
}

// arrived notes a completed r's arrivals of more than one chunk.
func (l *lateStarts) arrived(r *record.Record) {
	r.Arrivals(func(at int64, _, chunks int) {
		if chunks > 1 && len(l.batched) < maxLateMarks {
			l.batched = append(l.batched, [2]int64{r.Abs(r.Sent + at), int64(chunks - 1)})
		}
	})
}

// whileLate is how many batched chunks arrived while some request was
// past due and not yet sent.
func (l *lateStarts) whileLate() int64 {
	if len(l.late) == 0 || len(l.batched) == 0 {
		return 0
	}
	byStart := func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) }
	slices.SortFunc(l.late, byStart)
	slices.SortFunc(l.batched, byStart)
	var n int64
	// the late spans begun by an arrival's time end, at the latest, at end
	i, end := 0, int64(math.MinInt64)
	for _, b := range l.batched {
		for i < len(l.late) && l.late[i][0] <= b[0] {
			end = max(end, l.late[i][1])
			i++
		}
		if b[0] < end {
			n += b[1]
		}
	}
	return n
}
