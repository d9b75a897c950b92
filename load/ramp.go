package load

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"time"
)

// Ramp strategies, as vLLM's --ramp-up-strategy names them.
const (
	RampLinear      = "linear"
	RampExponential = "exponential"
)

// IndexRamp takes the request rate from From for the first of Requests
// requests to To for the last, by the request's index, linearly or
// geometrically (Strategy), open loop, as vLLM's --ramp-up-strategy
// does: the gap before request i is drawn at request i's rate.
type IndexRamp struct {
	From, To float64
	Strategy string // RampLinear or RampExponential
	Requests int    // the ramp's length: the step's measured requests
	Gaps     Gaps
}

// String is the ramp's label, "r=1-10/s linear".
func (r IndexRamp) String() string { return fmt.Sprintf("r=%g-%g/s %s", r.From, r.To, r.Strategy) }

// Check says what is wrong with the ramp, if anything.
func (r IndexRamp) Check() error {
	switch {
	case r.Strategy != RampLinear && r.Strategy != RampExponential:
		return errors.New("a ramp's strategy is linear or exponential")
	case !positiveRate(r.From) || !positiveRate(r.To):
		return errors.New("a ramp goes between two rates above 0 (requests/s)")
	case r.Requests < 1:
		return errors.New("a ramp goes from the first request to the last: give a number of requests")
	}
	return r.Gaps.Check()
}

// CheckProfile: a ramp's index counts requests, not sessions.
func (r IndexRamp) CheckProfile(p Profile) error {
	if p.Sessions.Turns > 1 {
		return errors.New("a ramp by request index sets each request's rate itself: it has no sessions")
	}
	return nil
}

// Arrivals implements Pacer: each start says its own rate.
func (r IndexRamp) Arrivals(seed uint64) iter.Seq[Arrival] {
	return func(yield func(Arrival) bool) {
		rng := arrivalRNG(seed)
		offset := 0.0 // seconds
		for i := 0; ; i++ {
			rate := r.rateAt(i)
			if i > 0 {
				offset += r.Gaps.unit(rng) / rate // the gap before request i, at its rate
			}
			if !yield(Arrival{At: time.Duration(offset * float64(time.Second)), Rate: rate}) {
				return
			}
		}
	}
}

// rateAt is request i's rate: vLLM's _get_current_request_rate, progress
// i / (n - 1) from the start rate to the end rate, linearly or
// geometrically, held at the end rate past the last.
func (r IndexRamp) rateAt(i int) float64 {
	progress := min(float64(i)/float64(max(r.Requests-1, 1)), 1)
	if r.Strategy == RampExponential {
		return r.From * math.Pow(r.To/r.From, progress)
	}
	return r.From + (r.To-r.From)*progress
}

// warmup goes one request at a time, or as many as the cap lets: a ramp
// has no rate of its own to warm up at.
func (r IndexRamp) warmup(p Profile) Shape {
	return Users{Count: max(p.MaxInFlight, 1)}
}
