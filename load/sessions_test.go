package load

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// turnLog records each job and when its request ended.
type turnLog struct {
	mu   sync.Mutex
	jobs map[int]Job       // by seq
	ends map[int]time.Time // by seq
}

func (l *turnLog) do(d time.Duration) Func {
	return func(ctx context.Context, job Job) *record.Record {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
		end := time.Now()
		l.mu.Lock()
		l.jobs[job.Seq], l.ends[job.Seq] = job, end
		l.mu.Unlock()
		return &record.Record{Seq: job.Seq, Warmup: job.Warmup, Scheduled: job.Scheduled.UnixNano(), Sent: end.UnixNano(), Done: end.UnixNano()}
	}
}

// TestSessionsTurnInOrder: 7 turns in sessions of 3 by 2 users are
// sessions 1 and 2 whole and session 3's first turn (its last, as the
// count ends there); every turn after a session's first goes out no
// sooner than the think time after the answer before it, in order.
func TestSessionsTurnInOrder(t *testing.T) {
	const think = 15 * time.Millisecond
	for rate, shape := range map[float64]Shape{0: Users{Count: 2}, 50: Rate{PerSecond: 50}} {
		log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
		p := Profile{Shape: shape, Requests: 7, Sessions: Sessions{Turns: 3, Think: Think{Mean: think}}}
		recs := collect(Run(context.Background(), p, log.do(2*time.Millisecond)))
		if len(recs) != 7 {
			t.Fatalf("rate %v: %d records, want 7", rate, len(recs))
		}
		for seq := range 7 {
			j := log.jobs[seq]
			wantSession, wantTurn := seq/3+1, seq%3+1
			if j.Session != wantSession || j.Turn != wantTurn || j.LastTurn != (wantTurn == 3 || seq == 6) {
				t.Errorf("rate %v, seq %d: session %d turn %d last %v", rate, seq, j.Session, j.Turn, j.LastTurn)
			}
			if j.Turn > 1 {
				if prev := log.ends[seq-1]; j.Scheduled.Before(prev.Add(think)) {
					t.Errorf("rate %v, seq %d: scheduled %v after the answer before it, under the think time %v", rate, seq, j.Scheduled.Sub(prev), think)
				}
			}
		}
	}
}

// TestSessionsThinkTimesSeeded: think times spread by a deviation are
// drawn per session from the seed: the same seed, the same gaps, whatever
// the interleaving; never negative.
func TestSessionsThinkTimesSeeded(t *testing.T) {
	think := Think{Mean: time.Second, Stddev: 2 * time.Second}
	draws := func() []time.Duration {
		var out []time.Duration
		for s := range 3 {
			rng := sessionRNG(7, s)
			for range 4 {
				out = append(out, think.draw(rng))
			}
		}
		return out
	}
	a, b := draws(), draws()
	for i := range a {
		if a[i] != b[i] || a[i] < 0 {
			t.Fatalf("draw %d: %v and %v", i, a[i], b[i])
		}
	}
	sorted := append([]time.Duration(nil), a...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	if sorted[0] == sorted[len(sorted)-1] {
		t.Errorf("every draw the same: %v", a)
	}
}

// TestSessionsValidate: a think time between turns without sessions, and
// negative turns or think times, are refused.
func TestSessionsValidate(t *testing.T) {
	if err := (Profile{Shape: Users{Count: 1, Think: Think{Mean: time.Second}}, Requests: 2}).Validate(); err != nil {
		t.Errorf("users with a think time refused: %v", err)
	}
	for _, p := range []Profile{
		{Shape: Rate{PerSecond: 5}, Requests: 2, Sessions: Sessions{Think: Think{Mean: time.Second}}},
		{Shape: Users{Count: 1}, Requests: 2, Sessions: Sessions{Turns: -1}},
		{Shape: Users{Count: 1}, Requests: 2, Sessions: Sessions{Turns: 1}},
		{Shape: Users{Count: 1}, Requests: 2, Sessions: Sessions{Turns: 2, Think: Think{Mean: -time.Second}}},
	} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

// TestSessionsDurationEnds: with a duration, no turn starts past it and
// the sessions in progress stop there.
func TestSessionsDurationEnds(t *testing.T) {
	log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
	p := Profile{Shape: Users{Count: 2}, Duration: 60 * time.Millisecond, Sessions: Sessions{Turns: 4, Think: Think{Mean: 10 * time.Millisecond}}}
	recs := collect(Run(context.Background(), p, log.do(time.Millisecond)))
	if len(recs) == 0 {
		t.Fatal("no turn sent")
	}
	// the phase began no later than its first turn was scheduled, so its
	// end is no later than that plus the duration
	start := log.jobs[0].Scheduled
	for _, j := range log.jobs {
		if j.Scheduled.Before(start) {
			start = j.Scheduled
		}
	}
	for _, j := range log.jobs {
		if !j.Scheduled.Before(start.Add(p.Duration)) {
			t.Errorf("session %d turn %d scheduled %v after the start, past the duration", j.Session, j.Turn, j.Scheduled.Sub(start))
		}
	}
}

// TestUsersThink: in a closed loop with a think time (AIPerf's
// user-centric load) a user's next request goes out no sooner than the
// think time after its answer: one user, so each request follows the one
// before it.
func TestUsersThink(t *testing.T) {
	log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
	const think = 15 * time.Millisecond
	recs := collect(Run(context.Background(), Profile{Shape: Users{Count: 1, Think: Think{Mean: think}}, Requests: 4}, log.do(time.Millisecond)))
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	for seq := 1; seq < 4; seq++ {
		if gap := log.jobs[seq].Scheduled.Sub(log.ends[seq-1]); gap < think {
			t.Errorf("request %d scheduled %v after the answer before it, under %v", seq, gap, think)
		}
		if log.jobs[seq].Session != 0 {
			t.Errorf("request %d in a session", seq)
		}
	}
}

// TestSessionsUnderACap: an open loop's sessions take a slot of the cap
// for every turn, so no more than the cap are ever in flight, however
// many sessions have started.
func TestSessionsUnderACap(t *testing.T) {
	var inFlight, peak atomic.Int64
	p := Profile{Shape: Rate{PerSecond: 500}, MaxInFlight: 2, Requests: 12, Sessions: Sessions{Turns: 3}}
	recs := collect(Run(context.Background(), p, fake(5*time.Millisecond, &inFlight, &peak)))
	if len(recs) != 12 || peak.Load() != 2 {
		t.Errorf("%d records, peak %d in flight; want 12 under a cap of 2, reached", len(recs), peak.Load())
	}
}

// TestSessionsRampUp: users ramping up with sessions each begin their
// first session at their start (a user's second session comes after
// its first two turns of 25 ms, past the others' starts), and the turns
// due in the ramp are marked as its, those after it not.
func TestSessionsRampUp(t *testing.T) {
	log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
	u := Users{Count: 3, RampUp: 60 * time.Millisecond}
	collect(Run(context.Background(), Profile{Shape: u, Duration: 200 * time.Millisecond, Sessions: Sessions{Turns: 2}}, log.do(25*time.Millisecond)))
	var firsts []time.Time
	ramp := 0
	for _, j := range log.jobs {
		if j.Phase == PhaseRampUp {
			ramp++
		}
		if j.Turn == 1 {
			firsts = append(firsts, j.Scheduled)
		}
	}
	sort.Slice(firsts, func(a, b int) bool { return firsts[a].Before(firsts[b]) })
	if len(firsts) < 3 || ramp == 0 || ramp == len(log.jobs) {
		t.Fatalf("%d first turns, %d of %d turns the ramp's", len(firsts), ramp, len(log.jobs))
	}
	for w := 1; w < 3; w++ {
		if gap := firsts[w].Sub(firsts[0]); gap < u.Start(w) {
			t.Errorf("user %d's first session due %v after the first's, before its start %v", w, gap, u.Start(w))
		}
	}
}
