package load

import (
	"errors"
	"math"
	"time"
)

// Phases of a step a request may fall in besides its steady part: kept
// out of the step's figures and counted apart (record.Record.Phase).
const (
	PhaseRampUp   = "ramp_up"   // started while the load was still rising (Profile.RampUp)
	PhaseCoolDown = "cool_down" // started in the step's last CoolDown
)

// validateRampUp checks a profile's ramp-up and cool-down.
func (p Profile) validateRampUp() error {
	switch {
	case p.RampUp < 0 || p.CoolDown < 0:
		return errors.New("ramp-up and cool-down must not be negative")
	case p.CoolDown > 0 && (p.Duration == 0 || p.CoolDown >= p.Duration):
		return errors.New("a cool-down is the end of a step's duration: give a duration longer than it")
	case (p.RampUp > 0 || p.CoolDown > 0) && (p.Schedule != nil || p.RampStrategy != "" || p.Turns > 1):
		return errors.New("a ramp-up or cool-down shapes a rate or a concurrency: not with a schedule, a rate ramp or sessions")
	case p.RampUpShape != "" && p.RampUpShape != RampLinear && p.RampUpShape != RampExponential:
		return errors.New("a ramp-up's shape is linear or exponential")
	case p.RampUpShape == RampExponential && (p.RampUp == 0 || p.Rate != 0):
		return errors.New("an exponential ramp-up raises users over a duration: give a ramp-up with a concurrency, not a rate")
	}
	return nil
}

// phaseOf is the part of the step a request started at (offset after the
// step's start) falls in: "" for the steady part.
func (p Profile) phaseOf(offset time.Duration) string {
	switch {
	case p.RampUp > 0 && offset < p.RampUp:
		return PhaseRampUp
	case p.CoolDown > 0 && p.Duration > 0 && offset >= p.Duration-p.CoolDown:
		return PhaseCoolDown
	}
	return ""
}

// userStart is when closed-loop user w of c starts under a ramp-up: the
// users in flight rise evenly from 1 to c over it (AIPerf's concurrency
// ramp), or exponentially, w+1 of them at RampUp*ln(w+1)/ln(c), so that
// the last starts as the ramp ends.
func (p Profile) userStart(w, c int) time.Duration {
	if p.RampUp <= 0 || c <= 1 {
		return 0
	}
	if p.RampUpShape == RampExponential {
		return time.Duration(float64(p.RampUp) * math.Log(float64(w+1)) / math.Log(float64(c)))
	}
	return time.Duration(float64(p.RampUp) * float64(w) / float64(c))
}

// rampedOffset is the arrival after one at offset (seconds) under a rate
// that rises linearly from 0 to Rate over RampUp (GuideLLM's rampup),
// unit the gap drawn at rate 1: the arrivals are the profile's process
// with its time changed by the ramp's cumulative rate, exactly.
func (p Profile) rampedOffset(offset, unit float64) float64 {
	d, r := p.RampUp.Seconds(), p.Rate
	cumulative := func(t float64) float64 {
		if t <= d {
			return r * t * t / (2 * d)
		}
		return r*d/2 + r*(t-d)
	}
	x := cumulative(offset) + unit
	if x <= r*d/2 {
		return math.Sqrt(2 * d * x / r)
	}
	return d + (x-r*d/2)/r
}
