package load

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// waveLog is what a wave's requests did, in the order they did it: the
// ground truth the tests compare Hold's answers with.
type waveLog struct {
	mu     sync.Mutex
	events []string // "ready a", "write a", ...
	dues   []time.Time
	holds  map[int]bool  // seq: its job had a Hold
	wave   int           // the writes wrote closes on
	wrote  chan struct{} // closed once wave writes were made
	writes int
}

func (l *waveLog) add(ev string) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

// holding returns a Func whose requests hold their send when they can;
// those whose seq is in alone go by themselves (Hold with nil), those in
// fail end before their send without a Hold.
func (l *waveLog) holding(alone, fail map[int]bool) Func {
	return func(ctx context.Context, job Job) *record.Record {
		rec := &record.Record{Seq: job.Seq}
		l.mu.Lock()
		l.holds[job.Seq] = job.Hold != nil
		l.mu.Unlock()
		id := string(rune('a' + job.Seq))
		switch {
		case job.Hold == nil:
		case fail[job.Seq]:
			rec.Fail(record.KindMalformed, "no body")
			return rec
		case alone[job.Seq]:
			if _, ok := job.Hold(ctx, nil); ok {
				l.add("ok for one alone " + id)
			}
			l.add("alone " + id)
			select { // the wave is not to wait for this request's end
			case <-l.wrote:
			case <-time.After(time.Minute):
				l.add("waited for " + id)
			}
		default:
			l.add("ready " + id)
			due, ok := job.Hold(ctx, func() {
				l.add("write " + id)
				if l.writes++; l.writes == l.wave {
					close(l.wrote)
				}
			})
			if !ok {
				l.add("abandoned " + id)
				rec.Fail(record.KindCanceled, "abandoned")
				return rec
			}
			l.mu.Lock()
			l.dues = append(l.dues, due)
			l.mu.Unlock()
		}
		return rec
	}
}

func newWaveLog(wave int) *waveLog {
	return &waveLog{holds: map[int]bool{}, wave: wave, wrote: make(chan struct{})}
}

// TestFirstWaveSentWhenAllAreReady: a closed loop's first requests are
// all written after the last of them was ready, all due at the same
// instant; the requests after them, and those
// of a warm-up, hold nothing. One that fails before its send, and one
// that goes by itself, are waited for by no one.
func TestFirstWaveSentWhenAllAreReady(t *testing.T) {
	l := newWaveLog(4)
	do := l.holding(map[int]bool{2: true}, map[int]bool{5: true})
	recs := collect(Run(context.Background(), Profile{Shape: Users{Count: 6}, Requests: 12, Warmup: 2}, do))
	if len(recs) != 14 {
		t.Fatalf("%d records, want 14", len(recs))
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	var ready, written []string
	lastReady, firstWrite := -1, len(l.events)
	for i, ev := range l.events {
		switch ev[:5] {
		case "ready":
			ready = append(ready, ev[6:])
			lastReady = i
		case "write":
			written = append(written, ev[6:])
			firstWrite = min(firstWrite, i)
		case "ok fo", "waite":
			t.Errorf("%s: a request that went alone was held", ev)
		}
	}
	if len(ready) != 4 || len(written) != 4 || !slices.Equal(slices.Sorted(slices.Values(written)), slices.Sorted(slices.Values(ready))) {
		t.Fatalf("ready %v, written %v: want the wave's four written, each once", ready, written)
	}
	if lastReady > firstWrite {
		t.Errorf("events %v: a write came before the last of the wave was ready", l.events)
	}
	if len(l.dues) < 4 || !slices.Equal(l.dues[:4], []time.Time{l.dues[0], l.dues[0], l.dues[0], l.dues[0]}) || l.dues[0].IsZero() {
		t.Errorf("dues %v: want one instant for the whole wave", l.dues)
	}
	// warm-up requests (seqs 0 and 1 of their own) hold nothing; of the
	// measured twelve, only the first six (the users' first) were held
	for seq := range 12 {
		if want := seq < 6; l.holds[seq] != want {
			t.Errorf("measured request %d: held %v, want %v", seq, l.holds[seq], want)
		}
	}
	if len(written) != 4 {
		t.Errorf("%d writes made by the wave, want 4 (the requests after it write their own)", len(written))
	}
}

// TestWaveAbandonedWithItsContext: requests held when the run is stopped
// and its grace ends are given up unsent; Run returns.
func TestWaveAbandonedWithItsContext(t *testing.T) {
	l := newWaveLog(2)
	ctx, cancel := context.WithCancel(context.Background())
	stuck := make(chan struct{})
	do := l.holding(nil, nil)
	recs := Run(ctx, Profile{Shape: Users{Count: 3}, Requests: 3}, func(ctx context.Context, job Job) *record.Record {
		if job.Seq == 2 { // never comes to its send: the others wait
			close(stuck)
			<-ctx.Done()
			return &record.Record{Seq: job.Seq}
		}
		return do(ctx, job)
	})
	<-stuck
	cancel()
	got := collect(recs)
	if len(got) != 3 {
		t.Fatalf("%d records, want 3", len(got))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ev := range l.events {
		if ev[:5] == "write" {
			t.Errorf("events %v: a request was sent after its run was stopped", l.events)
		}
	}
}

// TestNoWaveWhereStartsAreSpread: a rate, a ramp-up and a cancel share
// hold nothing.
func TestNoWaveWhereStartsAreSpread(t *testing.T) {
	for name, p := range map[string]Profile{
		"rate":    {Shape: Rate{PerSecond: 1000}, Requests: 4},
		"ramp-up": {Shape: Users{Count: 4, RampUp: time.Millisecond}, Requests: 4},
		"cancels": {Shape: Users{Count: 4}, Requests: 4, Cancel: Cancel{Share: 0.5, After: time.Hour}},
	} {
		l := newWaveLog(4)
		collect(Run(context.Background(), p, l.holding(nil, nil)))
		for seq, held := range l.holds {
			if held {
				t.Errorf("%s: request %d held", name, seq)
			}
		}
		if len(l.holds) != 4 {
			t.Errorf("%s: %d requests, want 4", name, len(l.holds))
		}
	}
}

// TestSessionsFirstTurnsInTheWave: with sessions, each user's first
// session's first turn is in the wave; later turns and sessions are not.
func TestSessionsFirstTurnsInTheWave(t *testing.T) {
	l := newWaveLog(3)
	collect(Run(context.Background(), Profile{Shape: Users{Count: 3}, Requests: 12, Sessions: Sessions{Turns: 2}}, l.holding(nil, nil)))
	l.mu.Lock()
	defer l.mu.Unlock()
	for seq := range 12 {
		if want := seq < 6 && seq%2 == 0; l.holds[seq] != want {
			t.Errorf("turn %d of session %d: held %v, want %v", seq%2+1, seq/2+1, l.holds[seq], want)
		}
	}
	if l.writes != 3 {
		t.Errorf("%d writes made by the wave, want 3", l.writes)
	}
}

// TestSeatLeftWritesAtOnce: a request of a user that has left its wave
// (its first went alone) is written at once and is not given the
// wave's due time; the wave went without it.
func TestSeatLeftWritesAtOnce(t *testing.T) {
	w := newWave(2)
	left, other := w.seat(), w.seat()
	if _, ok := left.hold(context.Background(), nil); ok {
		t.Error("a request that goes alone was told it was held")
	}
	wrote := false
	due, ok := left.hold(context.Background(), func() { wrote = true })
	if !ok || !wrote || !due.IsZero() {
		t.Errorf("after leaving: written %v, ok %v, due %v; want written at once, no due time", wrote, ok, due)
	}
	due, ok = other.hold(context.Background(), func() {})
	if !ok || due.IsZero() {
		t.Errorf("the wave's one request: ok %v, due %v; want sent, with the wave's due time", ok, due)
	}
}
