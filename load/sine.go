package load

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
	"time"
)

// Sine is a rate that swings around Mean by Amplitude once every Period,
// as vegeta's sine pacer: Mean + Amplitude*sin(phase + 2*pi*t/Period)
// requests/s, the step starting at the point of the cycle StartAt names,
// open loop, spread by Gaps. Every start says Mean, the rate the step
// asks for on average.
type Sine struct {
	Mean, Amplitude float64 // requests/s; Amplitude at most Mean
	Period          time.Duration
	StartAt         string // mean-up ("" too), peak, mean-down or trough
	Gaps            Gaps
}

// SineSpec is how ParseSine reads a sine.
const SineSpec = "mean=R,amplitude=A,period=D[,start=mean-up|peak|mean-down|trough] (vegeta's sine pacer, e.g. mean=10,amplitude=5,period=1m)"

// sinePhases are where in its cycle a sine may start, in radians.
var sinePhases = map[string]float64{"": 0, "mean-up": 0, "peak": math.Pi / 2, "mean-down": math.Pi, "trough": 3 * math.Pi / 2}

// ParseSine reads a sine written as SineSpec says, with gaps.
func ParseSine(spec string, gaps Gaps) (Sine, error) {
	s := Sine{Gaps: gaps}
	seen := map[string]bool{}
	for part := range strings.SplitSeq(spec, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		var err error
		switch key {
		case "mean":
			s.Mean, err = strconv.ParseFloat(value, 64)
		case "amplitude":
			s.Amplitude, err = strconv.ParseFloat(value, 64)
		case "period":
			s.Period, err = time.ParseDuration(value)
		case "start":
			s.StartAt = value
		default:
			return s, fmt.Errorf("sine %q: want %s", part, SineSpec)
		}
		if err != nil {
			return s, fmt.Errorf("sine %s: %w", key, err)
		}
		seen[key] = true
	}
	if !seen["mean"] || !seen["amplitude"] || !seen["period"] {
		return s, fmt.Errorf("a sine needs its mean, amplitude and period: %s", SineSpec)
	}
	return s, s.Check()
}

// String is the sine's label, "r=10±5/s per 1m0s".
func (s Sine) String() string { return fmt.Sprintf("r=%g±%g/s per %v", s.Mean, s.Amplitude, s.Period) }

// Check says what is wrong with the sine, if anything.
func (s Sine) Check() error {
	_, known := sinePhases[s.StartAt]
	switch {
	case !positiveRate(s.Mean):
		return errors.New("a sine's mean must be a positive number of requests per second")
	case !(s.Amplitude >= 0 && s.Amplitude <= s.Mean):
		return errors.New("a sine's amplitude is from 0 to its mean: the rate never falls below 0")
	case s.Period <= 0:
		return errors.New("a sine's period must be above 0")
	case !known:
		return fmt.Errorf("a sine starts at mean-up, peak, mean-down or trough, not %q", s.StartAt)
	}
	return s.Gaps.Check()
}

// Arrivals implements Pacer.
func (s Sine) Arrivals(seed uint64) iter.Seq[Arrival] {
	return curveArrivals(s, s.Gaps, seed, func(float64) float64 { return s.Mean })
}

// cumulative is the starts expected by t seconds: the sine's integral,
// Mean*t + Amplitude*Period/(2 pi) * (cos(phase) - cos(phase + 2 pi t/Period)).
func (s Sine) cumulative(t float64) float64 {
	phase, w := sinePhases[s.StartAt], 2*math.Pi/s.Period.Seconds()
	return s.Mean*t + s.Amplitude/w*(math.Cos(phase)-math.Cos(phase+w*t))
}
