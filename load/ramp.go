package load

import (
	"errors"
	"math"
)

// Ramp strategies, as vLLM's --ramp-up-strategy: the request rate goes
// from RampStartRate for the first request to RampEndRate for the last,
// by request index.
const (
	RampLinear      = "linear"
	RampExponential = "exponential"
)

// validateRamp checks a rate ramp.
func (p Profile) validateRamp() error {
	if p.RampStrategy == "" {
		if p.RampStartRate != 0 || p.RampEndRate != 0 {
			return errors.New("ramp rates go with a ramp strategy (linear or exponential)")
		}
		return nil
	}
	ok := func(r float64) bool { return r > 0 && !math.IsInf(r, 0) }
	switch {
	case p.RampStrategy != RampLinear && p.RampStrategy != RampExponential:
		return errors.New("the ramp strategy is linear or exponential")
	case !ok(p.RampStartRate) || !ok(p.RampEndRate):
		return errors.New("a ramp goes between two rates above 0 (requests/s)")
	case p.Rate != 0 || p.Schedule != nil || p.Turns > 1:
		return errors.New("a ramp sets the rate of each request itself: no rate, schedule or sessions beside it")
	case p.Requests == 0:
		return errors.New("a ramp goes from the first request to the last: give a number of requests")
	}
	return nil
}

// rampRate is the rate of request i of n: vLLM's
// _get_current_request_rate, progress i / (n - 1) from the start rate to
// the end rate, linearly or geometrically.
func (p Profile) rampRate(i, n int) float64 {
	progress := float64(i) / float64(max(n-1, 1))
	if p.RampStrategy == RampExponential {
		return p.RampStartRate * math.Pow(p.RampEndRate/p.RampStartRate, progress)
	}
	return p.RampStartRate + (p.RampEndRate-p.RampStartRate)*progress
}
