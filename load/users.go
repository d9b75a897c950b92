package load

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Users is a closed loop of Count users: each sends a request as soon as
// its last is answered, or a Think after it (AIPerf's user-centric
// load). With RampUp, they start one after another over it, from 1 in
// flight to Count (AIPerf's concurrency ramp): evenly, or doubling at
// even steps (RampShape RampExponential).
type Users struct {
	Count     int
	Think     Think
	RampUp    time.Duration
	RampShape string // RampLinear ("" too) or RampExponential
}

// String is the users' label, "c=8".
func (u Users) String() string { return fmt.Sprintf("c=%d", u.Count) }

// Check says what is wrong with the users, if anything.
func (u Users) Check() error {
	switch {
	case u.Count < 1:
		return errors.New("a closed loop needs at least 1 user (a concurrency of at least 1)")
	case u.RampUp < 0:
		return errors.New("a ramp-up must not be negative")
	case u.RampShape != "" && u.RampShape != RampLinear && u.RampShape != RampExponential:
		return errors.New("a ramp-up's shape is linear or exponential")
	case u.RampShape == RampExponential && u.RampUp == 0:
		return errors.New("an exponential ramp-up raises users over a duration: give the ramp-up's")
	}
	return u.Think.Check()
}

// Users implements Crowd.
func (u Users) Users() int { return u.Count }

// Start implements Crowd: user w of Count under the ramp-up starts at
// RampUp*w/Count, or, exponentially, RampUp*ln(w+1)/ln(Count), so that
// w+1 are in flight by then and the last starts as the ramp ends.
func (u Users) Start(w int) time.Duration {
	if u.RampUp <= 0 || u.Count <= 1 {
		return 0
	}
	if u.RampShape == RampExponential {
		return time.Duration(float64(u.RampUp) * math.Log(float64(w+1)) / math.Log(float64(u.Count)))
	}
	return time.Duration(float64(u.RampUp) * float64(w) / float64(u.Count))
}

// Pause implements Crowd: a think time.
func (u Users) Pause(rng *rand.Rand) time.Duration { return u.Think.draw(rng) }

func (u Users) rampUp() time.Duration { return u.RampUp }

// Think is a person's pause between an answer and their next request:
// Mean, spread normally by Stddev and cut at 0.
type Think struct {
	Mean, Stddev time.Duration
}

// Check says what is wrong with the think time, if anything.
func (t Think) Check() error {
	if t.Mean < 0 || t.Stddev < 0 {
		return errors.New("think time must not be negative")
	}
	return nil
}

// none says the pause is always 0.
func (t Think) none() bool { return t.Mean == 0 && t.Stddev == 0 }

// draw is one pause, from rng; none draws nothing.
func (t Think) draw(rng *rand.Rand) time.Duration {
	d := float64(t.Mean)
	if t.Stddev > 0 {
		d += rng.NormFloat64() * float64(t.Stddev)
	}
	return time.Duration(max(d, 0))
}
