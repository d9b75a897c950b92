// Package load decides when each request starts: a fixed number at once, a
// fixed concurrency, or an open-loop request rate, for a count or a
// duration, with warm-up. It knows nothing of protocols: it calls a Func for
// each request and passes the records it returns on.
package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// Arrivals is how request start times are spread in rate mode.
type Arrivals string

const (
	Constant Arrivals = "constant" // evenly spaced
	Poisson  Arrivals = "poisson"  // exponential gaps: independent users
	// Gamma gaps of shape Burstiness, as vLLM's --burstiness: below 1
	// burstier than Poisson, 1 Poisson, above 1 more even
	Gamma Arrivals = "gamma"
)

// Profile is one step's load.
type Profile struct {
	// Concurrency caps the requests in flight. Without Rate it is a closed
	// loop: a new request starts as soon as one ends. With Rate it is a cap
	// (0 for none); a request that must wait for a slot shows as client lag.
	Concurrency int
	Rate        float64 // requests per second, open loop; 0 for closed loop
	Arrivals    Arrivals
	Burstiness  float64 // the gamma shape, with Gamma arrivals
	Seed        uint64
	Requests    int           // measured requests; 0 to run until Duration ends
	Duration    time.Duration // 0 to run until Requests are done
	Warmup      int           // requests sent first and marked warm-up
	// Grace is how long in-flight requests may go on once ctx is
	// cancelled before they are cancelled too (and recorded as such).
	Grace time.Duration
	// Schedule, when set, gives every start in advance (a trace's
	// arrivals), open loop; Concurrency then caps the requests in flight
	// (0 for none), and Requests and Duration, when set, end it early.
	Schedule Schedule
	// Turns, above 1, makes every start a session of that many requests
	// (sessions.go): each turn is sent a think time after the answer to
	// the one before. Requests and Warmup count turns; Concurrency is
	// then the sessions at once (users), and Rate sessions started a
	// second.
	Turns int
	// ThinkTime is the mean time between a turn's answer and the next
	// turn; ThinkStddev spreads it normally (cut at 0), drawn from Seed.
	ThinkTime, ThinkStddev time.Duration
	// RampStrategy, when set (RampLinear, RampExponential), takes the
	// rate of each measured request from RampStartRate to RampEndRate by
	// its index, open loop, as vLLM's --ramp-up-strategy does; Requests
	// must be given, Rate not.
	RampStrategy               string
	RampStartRate, RampEndRate float64
	// RampUp, when above 0, raises the load over the step's start: a
	// rate from 0 to Rate (GuideLLM's rampup), or the users in flight
	// from 1 to Concurrency (AIPerf's concurrency ramp). CoolDown is the
	// end of a Duration whose starts are the load falling away. Requests
	// started in either are marked (Job.Phase) and kept out of the
	// step's figures.
	RampUp, CoolDown time.Duration
	// RampUpShape is how Concurrency users rise over RampUp: RampLinear
	// ("" too), one more every RampUp/Concurrency, or RampExponential,
	// users in flight Concurrency^(t/RampUp), doubling at even intervals.
	// A rate's ramp-up is linear only.
	RampUpShape string
	// CancelShare of the measured requests (0 to 1, drawn from Seed) are
	// to be cancelled CancelAfter their send, as users who leave
	// mid-answer (Job.CancelAfter).
	CancelShare float64
	CancelAfter time.Duration
}

// Schedule gives an open loop's starts in advance: each call of Next
// returns the next request's start as an offset from the step's start,
// never before the one it returned last, and false when there are no
// more. One goroutine calls it, in order.
type Schedule interface {
	Next() (offset time.Duration, ok bool)
}

// Job is one request to make.
type Job struct {
	Seq       int       // index among the step's requests of its kind (warm-up or measured)
	Warmup    bool      // excluded from figures
	Scheduled time.Time // when the profile wanted it sent
	// Session and Turn place a request of a session (Profile.Turns),
	// both from 1; 0 outside sessions. LastTurn marks a session's last.
	Session, Turn int
	LastTurn      bool
	// CancelAfter, when above 0, is when after its send the request is to
	// be cancelled (Profile.CancelShare).
	CancelAfter time.Duration
	// Rate is the request rate this request was started at, under a
	// ramp (Profile.RampStrategy); 0 otherwise.
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

// Func makes one request and returns its record. ctx ends when the request
// must be abandoned.
type Func func(ctx context.Context, job Job) *record.Record

// Validate checks a profile before anything is sent.
func (p Profile) Validate() error {
	if err := p.validateSessions(); err != nil {
		return err
	}
	if err := p.validateCancel(); err != nil {
		return err
	}
	if err := p.validateRamp(); err != nil {
		return err
	}
	if err := p.validateRampUp(); err != nil {
		return err
	}
	if p.Schedule != nil {
		switch {
		case p.Concurrency < 0 || p.Requests < 0 || p.Duration < 0:
			return errors.New("concurrency, requests and duration must not be negative")
		case p.Rate != 0 || p.Arrivals != "" || p.Burstiness != 0:
			return errors.New("a schedule sets its own arrivals: no rate, arrival process or burstiness")
		case p.Warmup != 0:
			return errors.New("a schedule has no warm-up: its requests are the trace's")
		}
		return nil
	}
	switch {
	case p.Concurrency < 0:
		return errors.New("concurrency must not be negative")
	case p.Rate < 0 || math.IsNaN(p.Rate) || math.IsInf(p.Rate, 0):
		return errors.New("rate must be a positive number of requests per second")
	case p.Rate == 0 && p.Concurrency == 0 && p.RampStrategy == "":
		return errors.New("a closed-loop profile needs a concurrency of at least 1")
	case p.Requests < 0 || p.Warmup < 0:
		return errors.New("request counts must not be negative")
	case p.Duration < 0:
		return errors.New("duration must not be negative")
	case p.Requests == 0 && p.Duration == 0:
		return errors.New("give a number of requests or a duration")
	case p.Rate > 0 && p.Arrivals != "" && p.Arrivals != Constant && p.Arrivals != Poisson && p.Arrivals != Gamma:
		return fmt.Errorf("arrivals %q: want constant, poisson or gamma", p.Arrivals)
	case p.Arrivals == Gamma && !(p.Burstiness > 0 && !math.IsInf(p.Burstiness, 0)):
		return errors.New("gamma arrivals need a burstiness above 0 (1 is Poisson)")
	case p.Arrivals != Gamma && p.Burstiness != 0:
		return errors.New("burstiness shapes gamma arrivals only")
	}
	return nil
}

// Run sends the profile's requests and streams their records on the
// returned channel, warm-up first, closing it when every request has ended.
// Cancelling ctx stops new requests; those in flight get p.Grace to finish.
func Run(ctx context.Context, p Profile, do Func) <-chan *record.Record {
	out := make(chan *record.Record, 1024)
	go func() {
		defer close(out)
		if err := p.Validate(); err != nil {
			return
		}
		reqCtx, cancelReq := context.WithCancel(context.WithoutCancel(ctx))
		defer cancelReq()
		var grace *time.Timer
		var graceMu sync.Mutex
		stopWatch := context.AfterFunc(ctx, func() {
			graceMu.Lock()
			grace = time.AfterFunc(p.Grace, cancelReq)
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
			phase(ctx, reqCtx, p, p.Warmup, 0, true, do, out)
		}
		phase(ctx, reqCtx, p, p.Requests, p.Duration, false, do, out)
	}()
	return out
}

// phase sends n requests (0: unbounded) until dur ends (0: unbounded).
func phase(ctx, reqCtx context.Context, p Profile, n int, dur time.Duration, warm bool, do Func, out chan<- *record.Record) {
	if ctx.Err() != nil {
		return
	}
	start := time.Now()
	var deadline time.Time
	if dur > 0 {
		deadline = start.Add(dur)
	}
	if p.Turns > 1 {
		sessions(ctx, reqCtx, p, n, start, deadline, warm, do, out)
		return
	}
	if p.Rate == 0 && p.Schedule == nil && (p.RampStrategy == "" || warm) {
		if warm {
			p.Concurrency = max(p.Concurrency, 1) // a ramp's warm-up: one by one unless capped
		}
		closedLoop(ctx, reqCtx, p, n, deadline, warm, do, out)
		return
	}
	openLoop(ctx, reqCtx, p, n, start, deadline, warm, do, out)
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

// closedLoop runs Concurrency users, each starting a request as its last
// ends, or a think time after it (AIPerf's user-centric load).
func closedLoop(ctx, reqCtx context.Context, p Profile, n int, deadline time.Time, warm bool, do Func, out chan<- *record.Record) {
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := p.Concurrency
	if n > 0 {
		workers = min(workers, n)
	}
	opening := p.firstWave(workers, warm)
	start := time.Now()
	startUsers(&wg, workers, func(w int) {
		place := opening.seat()
		defer place.leave()     // a user that had no request to send
		rng := sessionRNG(p, w) // a user's think times are its own
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		planned := start.Add(p.userStart(w, workers))
		if !warm && !sleepUntil(ctx, timer, planned) {
			return
		}
		for first := true; ; first = false {
			at := time.Now()
			if first && !warm {
				// every user's first request was due at its start: a
				// late wake-up (behind a thousand users starting at
				// once) shows as the client's lag
				at = planned
			}
			if !first && p.ThinkTime+p.ThinkStddev > 0 {
				at = at.Add(p.think(rng))
				if !deadline.IsZero() && !at.Before(deadline) || !sleepUntil(ctx, timer, at) {
					return
				}
			}
			i := int(next.Add(1) - 1)
			if (n > 0 && i >= n) || ctx.Err() != nil {
				return
			}
			if !deadline.IsZero() && !time.Now().Before(deadline) {
				return
			}
			job := Job{Seq: i, Warmup: warm, Scheduled: at}
			if !warm {
				job.Phase = p.phaseOf(at.Sub(start))
			}
			if first && place != nil {
				job.Hold = place.hold
			}
			rec := do(reqCtx, job)
			place.leave() // its first request ended before its send
			out <- rec
		}
	})
	wg.Wait()
}

// openLoop starts requests on a schedule fixed in advance: a slow server
// never delays the next start (no coordinated omission).
func openLoop(ctx, reqCtx context.Context, p Profile, n int, start, deadline time.Time, warm bool, do Func, out chan<- *record.Record) {
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	var offset float64 // seconds after start, of a rate's arrivals
	next := func(i int) (time.Duration, bool) {
		if p.Schedule != nil {
			return p.Schedule.Next()
		}
		switch {
		case i == 0:
		case p.RampUp > 0 && !warm:
			offset = p.rampedOffset(offset, p.gapAt(rng, 1))
		case p.RampStrategy != "":
			offset += p.gapAt(rng, p.rampRate(i, n)) // the gap before request i, at its rate
		default:
			offset += p.gapAt(rng, p.Rate)
		}
		return time.Duration(offset * float64(time.Second)), true
	}
	var slots chan struct{}
	if p.Concurrency > 0 {
		slots = make(chan struct{}, p.Concurrency)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i := 0; n == 0 || i < n; i++ {
		d, ok := next(i)
		if !ok {
			return
		}
		at := start.Add(d)
		if !deadline.IsZero() && !at.Before(deadline) {
			return
		}
		if d := time.Until(at); d > 0 {
			timer.Reset(d)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return
		}
		if slots != nil {
			select {
			case <-ctx.Done():
				return
			case slots <- struct{}{}:
			}
		}
		job := Job{Seq: i, Warmup: warm, Scheduled: at}
		if p.RampStrategy != "" {
			job.Rate = p.rampRate(i, n)
		}
		if !warm {
			job.Phase = p.phaseOf(d)
		}
		wg.Go(func() {
			rec := do(reqCtx, job)
			if slots != nil {
				<-slots
			}
			out <- rec
		})
	}
}

// gap is the time in seconds from one start to the next: its mean is
// 1/Rate whatever the arrivals.
func (p Profile) gap(rng *rand.Rand) float64 { return p.gapAt(rng, p.Rate) }

// gapAt is a gap at rate, drawn as the profile's arrivals are.
func (p Profile) gapAt(rng *rand.Rand, rate float64) float64 {
	switch p.Arrivals {
	case Poisson:
		return rng.ExpFloat64() / rate
	case Gamma:
		// shape k and scale 1/(rate k), as vLLM draws them
		return gamma(rng, p.Burstiness) / (rate * p.Burstiness)
	}
	return 1 / rate
}

// gamma draws from the gamma distribution of shape k and scale 1
// (Marsaglia and Tsang's method; for k < 1, a draw of shape k+1 scaled by
// U^(1/k)).
func gamma(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		return gamma(rng, k+1) * math.Pow(1-rng.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64() // in (0, 1]: its log is finite
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
