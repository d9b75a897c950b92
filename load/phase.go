package load

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// A phase is the warm-up or the measured part of a step: n requests (0:
// unbounded) until its deadline (zero: none), in starts of one session
// each (a single request outside sessions), timed by its shape.
type phase struct {
	ctx, reqCtx context.Context
	p           Profile
	shape       Shape
	n           int
	turns       int // requests a start sends
	start       time.Time
	deadline    time.Time
	warm        bool
	do          Func
	out         chan<- *record.Record
	slots       chan struct{} // the cap on requests in flight, open loop
}

// runPhase runs one phase of p, timed by shape.
func runPhase(ctx, reqCtx context.Context, p Profile, shape Shape, n int, dur time.Duration, warm bool, do Func, out chan<- *record.Record) {
	if ctx.Err() != nil {
		return
	}
	ph := &phase{ctx: ctx, reqCtx: reqCtx, p: p, shape: shape, n: n, turns: p.Sessions.turns(), start: time.Now(), warm: warm, do: do, out: out}
	if dur > 0 {
		ph.deadline = ph.start.Add(dur)
	}
	switch s := shape.(type) {
	case Crowd:
		ph.closedLoop(s)
	case Pacer:
		if p.MaxInFlight > 0 {
			ph.slots = make(chan struct{}, p.MaxInFlight)
		}
		ph.openLoop(s)
	}
}

// more says whether start u has a request to send.
func (ph *phase) more(u int) bool {
	return ph.ctx.Err() == nil && (ph.n == 0 || u*ph.turns < ph.n)
}

// past says whether a request due at is past the phase's deadline.
func (ph *phase) past(at time.Time) bool {
	return !ph.deadline.IsZero() && (!at.Before(ph.deadline) || !time.Now().Before(ph.deadline))
}

// phaseOf is the part of the step a request due at falls in: "" for its
// steady part.
func (ph *phase) phaseOf(at time.Time) string {
	if ph.warm {
		return ""
	}
	offset := at.Sub(ph.start)
	switch {
	case offset < rampUpOf(ph.shape):
		return PhaseRampUp
	case ph.p.CoolDown > 0 && ph.p.Duration > 0 && offset >= ph.p.Duration-ph.p.CoolDown:
		return PhaseCoolDown
	}
	return ""
}

// send sends start u's requests, the first due at (its slot, open loop,
// taken already), each turn after it a think time after the answer
// before; place, when set, holds the first in the step's first wave. It
// reports whether the phase goes on (neither stopped nor past its
// deadline).
func (ph *phase) send(u int, at time.Time, rate float64, place *seat) bool {
	var timer *time.Timer // made with the draws, at a session's second turn
	var rng *rand.Rand
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for t := range ph.turns {
		seq := u*ph.turns + t
		if ph.n > 0 && seq >= ph.n {
			return true
		}
		if t > 0 {
			if rng == nil {
				rng, timer = sessionRNG(ph.p.Seed, u), time.NewTimer(time.Hour)
			}
			at = time.Now().Add(ph.p.Sessions.Think.draw(rng))
			if ph.past(at) || !sleepUntil(ph.ctx, timer, at) || !ph.takeSlot() {
				return false
			}
		}
		job := Job{Seq: seq, Warmup: ph.warm, Scheduled: at, Rate: rate, Phase: ph.phaseOf(at)}
		if ph.turns > 1 {
			job.Session, job.Turn, job.LastTurn = u+1, t+1, t == ph.turns-1 || (ph.n > 0 && seq == ph.n-1)
		}
		if t == 0 && place != nil {
			job.Hold = place.hold // a user's first request is in the wave
		}
		rec := ph.do(ph.reqCtx, job)
		place.leave() // its first request ended before its send
		if ph.slots != nil {
			<-ph.slots
		}
		ph.out <- rec
	}
	return true
}

// takeSlot waits for room under the cap on requests in flight, and
// reports false when the phase is stopped first.
func (ph *phase) takeSlot() bool {
	if ph.slots == nil {
		return true
	}
	select {
	case <-ph.ctx.Done():
		return false
	case ph.slots <- struct{}{}:
		return true
	}
}

// startUsers starts n users on wg, one at a time, each behind the reads
// already due: a thousand made runnable at once queued the reads of the
// streams already answering behind every start, and at 1,024 users 0.9%
// of token reads came two tokens at once.
func startUsers(wg *sync.WaitGroup, n int, user func(w int)) {
	for w := range n {
		if w > 0 {
			runtime.Gosched()
		}
		wg.Go(func() { user(w) })
	}
}

// sleepUntil waits until at, and reports false when ctx ends first.
func sleepUntil(ctx context.Context, timer *time.Timer, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer.Reset(d)
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
