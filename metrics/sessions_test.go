package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestSessionFigures: two sessions, worked by hand. Session 1: turns sent
// at 0 and 1.5 s (after a think time), their first tokens 100 and 300 ms
// after, the last done at 2 s. Session 2: one turn at 0.5 s (TTFT 200 ms,
// done at 1 s) and a second that failed (done at 3 s). Durations 2 s and
// 2.5 s; first-turn TTFTs 100 and 200 ms; later turns' 300 ms (the failed
// turn has none); the most turns 2.
func TestSessionFigures(t *testing.T) {
	turn := func(session, n int, sent, first, done int64) *record.Record {
		r := rec(sent, []int64{first}, []int{1})
		r.Session, r.Turn, r.Done = session, n, (sent+done)*ms
		return r
	}
	failed := &record.Record{V: 1, Session: 2, Turn: 2, Sent: 2500 * ms, Done: 3000 * ms}
	failed.Fail(record.KindHTTPStatus, "HTTP 500")
	s := NewAccumulator(Targets{})
	for _, r := range []*record.Record{
		turn(1, 1, 0, 100, 400), turn(1, 2, 1500, 300, 500),
		turn(2, 1, 500, 200, 500), failed,
	} {
		s.Add(r)
	}
	v := s.Summary().Sessions
	if v == nil || v.Sessions != 2 || v.Turns != 2 {
		t.Fatalf("sessions %+v", v)
	}
	near(t, "shortest session", v.Duration.Min, 2)
	near(t, "longest session", v.Duration.Max, 2.5)
	near(t, "first turns' TTFT mean", v.FirstTTFT.Mean, 150)
	if v.LaterTTFT.Count != 1 || v.LaterTTFT.Mean != 300 {
		t.Errorf("later turns' TTFT %+v, want the one 300 ms", v.LaterTTFT)
	}
	plain := NewAccumulator(Targets{})
	plain.Add(rec(0, []int64{10}, []int{1}))
	if plain.Summary().Sessions != nil {
		t.Error("a step without sessions reports sessions")
	}
}

// TestSessionLanes: each session's turns, from send to end, in seconds
// after the earliest send among them, sessions in order.
func TestSessionLanes(t *testing.T) {
	s := NewAccumulator(Targets{})
	turn := func(session, n int, sentMS int64, at ...int64) *record.Record {
		r := away(sentMS, at...)
		r.Session, r.Turn = session, n
		return r
	}
	for _, r := range []*record.Record{turn(2, 1, 5500, 100), turn(1, 1, 5000, 200), turn(1, 2, 6000, 300)} {
		s.Add(r)
	}
	lanes := s.Summary().Sessions.Lanes
	if len(lanes) != 2 || lanes[0].Session != 1 || len(lanes[0].Turns) != 2 || lanes[0].Turns[0] != [2]float64{0, 0.2} ||
		lanes[0].Turns[1] != [2]float64{1, 1.3} || lanes[1].Turns[0] != [2]float64{0.5, 0.6} {
		t.Errorf("lanes %+v", lanes)
	}
}
