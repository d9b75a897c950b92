// Package load decides when each request starts. A Profile holds what
// every load shares (how many requests, how long, warm-up, sessions,
// planned cancellations); its Shape says when requests start: a Pacer's
// arrivals, open loop (Rate, IndexRamp, Sine, a trace's replay), or a
// Crowd's users, closed loop (Users). It knows nothing of protocols: it
// calls a Func for each request and passes the records it returns on.
package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// Profile is one step's load.
type Profile struct {
	// Shape says when requests start: a Pacer (open loop) or a Crowd
	// (closed loop).
	Shape Shape
	// MaxInFlight, above 0, caps an open loop's requests in flight; a
	// request that must wait for a slot shows the wait as client lag. A
	// closed loop's cap is its users.
	MaxInFlight int
	// MaxPrefill, above 0, caps the requests sent whose first token has
	// not come (AIPerf's prefill concurrency), so that a run of long
	// prompts does not swamp a server's memory with prefills; a request
	// that must wait for a slot shows the wait as client lag.
	MaxPrefill int
	// Sessions, of 2 turns or more, makes every start a session.
	Sessions Sessions
	Requests int           // measured requests; 0 to run until Duration ends
	Duration time.Duration // 0 to run until Requests are done
	Warmup   int           // requests sent first and marked warm-up
	// Grace is how long in-flight requests may go on once ctx is
	// cancelled before they are cancelled too (and recorded as such).
	Grace time.Duration
	Seed  uint64 // of every random draw: gaps, think times, cancellations
	// CoolDown is the end of Duration whose starts are the load falling
	// away: they are marked PhaseCoolDown and kept out of the figures.
	CoolDown time.Duration
	Cancel   Cancel
}

// Job is one request to make.
type Job struct {
	Seq       int       // index among the step's requests of its kind (warm-up or measured)
	Warmup    bool      // excluded from figures
	Scheduled time.Time // when the profile wanted it sent
	// Session and Turn place a request of a session (Profile.Sessions),
	// both from 1; 0 outside sessions. LastTurn marks a session's last.
	Session, Turn int
	LastTurn      bool
	// CancelAfter, when above 0, is when after its send the request is to
	// be cancelled (Profile.Cancel).
	CancelAfter time.Duration
	// Rate is the request rate this request was started at (its
	// Arrival's); 0 in a closed loop.
	Rate float64
	// Phase is PhaseRampUp or PhaseCoolDown for a request started in
	// those parts of the step, "" in its steady part.
	Phase string
	// Hold, when set, is a closed loop's first request of a user: all
	// are due at once, and each goes when all are ready. The request
	// calls it once, when only its send is left, with the write that
	// sends it (nil for one that goes by itself: an upload, a dial). It
	// returns once the write was made, perhaps by another request's
	// goroutine, with when the wave was due, which is the request's due
	// time in place of Scheduled (zero: Scheduled stands); or, as ctx
	// ends first, ok false and the write never made. A request that
	// never calls it waits for no one, and the others wait for it to end.
	Hold func(ctx context.Context, write func()) (due time.Time, ok bool)
}

// Phases of a step a request may fall in besides its steady part: kept
// out of the step's figures and counted apart (record.Record.Phase).
const (
	PhaseRampUp   = "ramp_up"   // started while the load was still rising
	PhaseCoolDown = "cool_down" // started in the step's last CoolDown
)

// Func makes one request and returns its record. ctx ends when the request
// must be abandoned.
type Func func(ctx context.Context, job Job) *record.Record

// Validate checks a profile before anything is sent: its shape's own
// values, then what the profile adds around it.
func (p Profile) Validate() error {
	if p.Shape == nil {
		return errors.New("a profile needs a shape: when its requests start (load.Users, load.Rate, ...)")
	}
	if err := p.Shape.Check(); err != nil {
		return err
	}
	_, closed := p.Shape.(Crowd)
	if _, open := p.Shape.(Pacer); !open && !closed {
		return errors.New("a shape is a Pacer (open loop) or a Crowd (closed loop)")
	}
	switch {
	case p.Requests < 0 || p.Warmup < 0:
		return errors.New("request counts must not be negative")
	case p.Duration < 0 || p.Grace < 0 || p.CoolDown < 0:
		return errors.New("durations must not be negative")
	case p.MaxInFlight < 0:
		return errors.New("the cap on requests in flight must not be negative")
	case p.MaxPrefill < 0:
		return errors.New("the cap on requests in prefill must not be negative")
	case p.MaxInFlight > 0 && closed:
		return errors.New("a closed loop's users are its cap on requests in flight: no cap beside them")
	case p.Requests == 0 && p.Duration == 0 && !isFinite(p.Shape):
		return errors.New("give a number of requests or a duration")
	case p.CoolDown > 0 && (p.Duration == 0 || p.CoolDown >= p.Duration):
		return errors.New("a cool-down is the end of a step's duration: give a duration longer than it")
	}
	if err := p.Sessions.Check(); err != nil {
		return err
	}
	if err := p.Cancel.Check(); err != nil {
		return err
	}
	if c, ok := p.Shape.(profileChecker); ok {
		return c.CheckProfile(p)
	}
	return nil
}

// Run sends the profile's requests and streams their records on the
// returned channel, warm-up first, closing it when every request has ended.
// Cancelling ctx stops new requests; those in flight get p.Grace to finish.
// A profile that does not validate sends nothing.
func Run(ctx context.Context, p Profile, do Func) <-chan *record.Record {
	out := make(chan *record.Record, 1024)
	go func() {
		defer close(out)
		if err := p.Validate(); err != nil {
			return
		}
		reqCtx, cancelReq := context.WithCancelCause(context.WithoutCancel(ctx))
		defer cancelReq(nil)
		var grace *time.Timer
		var graceMu sync.Mutex
		stopWatch := context.AfterFunc(ctx, func() {
			graceMu.Lock()
			// the requests still going are ended for the stop's own reason
			why := fmt.Errorf("%w; the request had not ended within the %v grace", context.Cause(ctx), p.Grace)
			grace = time.AfterFunc(p.Grace, func() { cancelReq(why) })
			graceMu.Unlock()
		})
		defer func() {
			stopWatch()
			graceMu.Lock()
			if grace != nil {
				grace.Stop()
			}
			graceMu.Unlock()
		}()
		do = p.withCancels(do)
		if p.Warmup > 0 {
			runPhase(ctx, reqCtx, p, warmupOf(p), p.Warmup, 0, true, do, out)
		}
		runPhase(ctx, reqCtx, p, p.Shape, p.Requests, p.Duration, false, do, out)
	}()
	return out
}
