package load

import (
	"iter"
	"math"
	"time"
)

// A curve is a request rate that changes with time, given by its
// cumulative count: the starts expected by t seconds after the phase's
// start (the rate's integral from 0), which never falls as t grows.
type curve interface {
	cumulative(t float64) float64
}

// An inverter is a curve whose cumulative count it can invert exactly:
// the first t at which it reaches x.
type inverter interface {
	inverse(x float64) float64
}

// curveArrivals lays gaps on c: start k comes where c's cumulative count
// reaches the sum of k gaps drawn at one a second, so that the starts
// follow the curve's rate exactly, spread as the gaps' process spreads
// them (a time change of that process). Each says the rate it was
// offered at, offered(t) requests/s at its t seconds: the rate a report
// states for it.
func curveArrivals(c curve, gaps Gaps, seed uint64, offered func(t float64) float64) iter.Seq[Arrival] {
	return func(yield func(Arrival) bool) {
		rng := arrivalRNG(seed)
		x, t := 0.0, 0.0
		for k := 0; ; k++ {
			if k > 0 {
				x += gaps.unit(rng)
			}
			if t = reach(c, x, t); t > maxCurveSeconds {
				return // the curve never reaches x: it starts nothing more
			}
			if !yield(Arrival{At: time.Duration(t * float64(time.Second)), Rate: offered(t)}) {
				return
			}
		}
	}
}

// maxCurveSeconds is as far as a curve's starts are looked for: a year,
// longer than any step runs, and short of a Duration's overflow.
const maxCurveSeconds = 365 * 24 * 3600.0

// reach is the first t, no earlier than from, at which c's cumulative
// count reaches x: exactly where c inverts itself, else found by doubling
// a bracket from from, then halving it to well under a nanosecond.
func reach(c curve, x, from float64) float64 {
	if inv, ok := c.(inverter); ok {
		return max(inv.inverse(x), from)
	}
	if c.cumulative(from) >= x {
		return from
	}
	lo, step := from, 1e-3
	hi := lo + step
	for c.cumulative(hi) < x {
		if hi > maxCurveSeconds {
			return math.Inf(1)
		}
		lo, step = hi, 2*step
		hi = lo + step
	}
	for range 200 {
		if hi-lo <= 1e-10 {
			break
		}
		mid := lo + (hi-lo)/2
		if c.cumulative(mid) >= x {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
