package load

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"time"
)

// Rate starts PerSecond requests a second, open loop, spread by Gaps.
// With RampUp, the rate first rises from 0 to PerSecond linearly over it
// (GuideLLM's rampup).
type Rate struct {
	PerSecond float64
	Gaps      Gaps
	RampUp    time.Duration
}

// String is the rate's label, "r=5/s".
func (r Rate) String() string { return fmt.Sprintf("r=%g/s", r.PerSecond) }

// Check says what is wrong with the rate, if anything.
func (r Rate) Check() error {
	switch {
	case !positiveRate(r.PerSecond):
		return errors.New("rate must be a positive number of requests per second")
	case r.RampUp < 0:
		return errors.New("a ramp-up must not be negative")
	}
	return r.Gaps.Check()
}

// Arrivals implements Pacer: the gaps laid on the rate, exactly, the
// ramp's included; every start says the rate the step asked for.
func (r Rate) Arrivals(seed uint64) iter.Seq[Arrival] {
	return curveArrivals(r, r.Gaps, seed, func(float64) float64 { return r.PerSecond })
}

func (r Rate) rampUp() time.Duration { return r.RampUp }

// warmup is the rate without its ramp: the step's rate, warming up.
func (r Rate) warmup(Profile) Shape {
	r.RampUp = 0
	return r
}

// cumulative is the starts expected by t seconds: those of the ramp, the
// area under its line up to t, then PerSecond a second.
func (r Rate) cumulative(t float64) float64 {
	d, rate := r.RampUp.Seconds(), r.PerSecond
	if t <= d {
		return rate * t * t / (2 * d)
	}
	return rate*d/2 + rate*(t-d)
}

// inverse is when the cumulative count reaches x.
func (r Rate) inverse(x float64) float64 {
	d, rate := r.RampUp.Seconds(), r.PerSecond
	if x <= rate*d/2 {
		return math.Sqrt(2 * d * x / rate)
	}
	return d + (x-rate*d/2)/rate
}
