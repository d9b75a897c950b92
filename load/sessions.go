package load

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// validateSessions checks the session fields of a profile.
func (p Profile) validateSessions() error {
	switch {
	case p.Turns < 0:
		return errors.New("turns must not be negative")
	case p.ThinkTime < 0 || p.ThinkStddev < 0:
		return errors.New("think time must not be negative")
	case p.Turns <= 1 && (p.ThinkTime > 0 || p.ThinkStddev > 0) && (p.Rate > 0 || p.Schedule != nil):
		return errors.New("a think time is a user's, between an answer and its next request: it goes with sessions (turns above 1) or a closed loop (no rate)")
	case p.Turns > 1 && p.Schedule != nil:
		return errors.New("a schedule (a trace) times every request itself: it has no sessions")
	}
	return nil
}

// sessions runs a phase of sessions: n turns (0: unbounded) until the
// deadline. Closed loop, each of Concurrency users runs one session after
// another; open loop, sessions start at Rate (Concurrency then caps the
// requests in flight). A session's turn goes out a think time after the
// answer to the one before, so a slow server delays it, as it delays a
// person; its Scheduled is that moment, so a late start still shows as
// the client's lag. A turn not begun by the deadline is not sent.
func sessions(ctx, reqCtx context.Context, p Profile, n int, start, deadline time.Time, warm bool, do Func, out chan<- *record.Record) {
	var slots chan struct{}
	if p.Rate > 0 && p.Concurrency > 0 {
		slots = make(chan struct{}, p.Concurrency)
	}
	run := sessionRunner{ctx: ctx, reqCtx: reqCtx, p: p, n: n, deadline: deadline, warm: warm, do: do, out: out, slots: slots}
	var wg sync.WaitGroup
	defer wg.Wait()
	if p.Rate == 0 {
		var next atomic.Int64
		users := p.Concurrency
		if n > 0 {
			users = min(users, (n+p.Turns-1)/p.Turns)
		}
		opening := p.firstWave(users, warm)
		startUsers(&wg, users, func(int) {
			place := opening.seat()
			defer place.leave()
			for first := true; ; first = false {
				at := time.Now()
				if first && !warm {
					at = start // every user's first session was due at the start, as closedLoop's
				}
				s := int(next.Add(1) - 1)
				if !run.more(s) || !run.session(s, at, place) {
					return
				}
				place = nil
			}
		})
		return
	}
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	offset := 0.0
	for s := 0; run.more(s); s++ {
		if s > 0 {
			offset += p.gap(rng)
		}
		at := start.Add(time.Duration(offset * float64(time.Second)))
		if !deadline.IsZero() && !at.Before(deadline) {
			return
		}
		if !sleepUntil(ctx, timer, at) {
			return
		}
		wg.Go(func() { run.session(s, at, nil) })
	}
}

// sessionRunner runs the sessions of one phase.
type sessionRunner struct {
	ctx, reqCtx context.Context
	p           Profile
	n           int
	deadline    time.Time
	warm        bool
	do          Func
	out         chan<- *record.Record
	slots       chan struct{} // the cap on requests in flight, open loop
}

// more reports whether session s has a turn to send.
func (r *sessionRunner) more(s int) bool {
	return r.ctx.Err() == nil && (r.n == 0 || s*r.p.Turns < r.n)
}

// session sends session s's turns from at, and reports whether the phase
// goes on (neither stopped nor past its deadline). place, when set, is
// the user's in the step's first wave: its first turn is held in it.
func (r *sessionRunner) session(s int, at time.Time, place *seat) bool {
	p := r.p
	rng := sessionRNG(p, s)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for t := range p.Turns {
		seq := s*p.Turns + t
		if r.n > 0 && seq >= r.n {
			return true
		}
		if t > 0 {
			at = time.Now().Add(p.think(rng))
		}
		if !r.deadline.IsZero() && !at.Before(r.deadline) {
			return false
		}
		if !sleepUntil(r.ctx, timer, at) {
			return false
		}
		if r.slots != nil {
			select {
			case <-r.ctx.Done():
				return false
			case r.slots <- struct{}{}:
			}
		}
		last := t == p.Turns-1 || (r.n > 0 && seq == r.n-1)
		job := Job{Seq: seq, Warmup: r.warm, Scheduled: at, Session: s + 1, Turn: t + 1, LastTurn: last}
		if t == 0 && place != nil {
			job.Hold = place.hold // a user's first turn is in the wave
		}
		rec := r.do(r.reqCtx, job)
		place.leave()
		if r.slots != nil {
			<-r.slots
		}
		r.out <- rec
	}
	return true
}

// sessionRNG is session s's own draws, so that its think times do not
// depend on how the sessions interleave.
func sessionRNG(p Profile, s int) *rand.Rand {
	return rand.New(rand.NewPCG(p.Seed+uint64(s)+1, p.Seed^0x5851f42d4c957f2d))
}

// think draws a think time: ThinkTime, spread normally by ThinkStddev
// and cut at 0.
func (p Profile) think(rng *rand.Rand) time.Duration {
	d := float64(p.ThinkTime)
	if p.ThinkStddev > 0 {
		d += rng.NormFloat64() * float64(p.ThinkStddev)
	}
	return time.Duration(max(d, 0))
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
