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

// Stages is a rate that moves from stage to stage, as k6's
// ramping-arrival-rate executor: from Start, each stage takes the rate
// linearly to its Target over its For (a For of 0 is a step), open loop,
// spread by Gaps; the load ends with the last stage.
type Stages struct {
	Start  float64 // requests/s
	Stages []Stage
	Gaps   Gaps
}

// Stage is one stage of Stages.
type Stage struct {
	Target float64 // requests/s at its end
	For    time.Duration
}

// StagesSpec is how ParseStages reads stages.
const StagesSpec = "[START,]TARGET@DURATION,... (k6's ramping arrival rate: e.g. 1,10@30s,10@1m,0@30s)"

// ParseStages reads stages written as StagesSpec says, with gaps.
func ParseStages(spec string, gaps Gaps) (Stages, error) {
	s := Stages{Gaps: gaps}
	for i, part := range strings.Split(spec, ",") {
		target, dur, staged := strings.Cut(strings.TrimSpace(part), "@")
		rate, err := strconv.ParseFloat(target, 64)
		if err != nil {
			return s, fmt.Errorf("stage %q: want TARGET@DURATION, e.g. 10@30s", part)
		}
		if !staged {
			if i > 0 {
				return s, fmt.Errorf("stage %q: only the first may be a bare start rate", part)
			}
			s.Start = rate
			continue
		}
		d, err := time.ParseDuration(dur)
		if err != nil {
			return s, fmt.Errorf("stage %q: %w", part, err)
		}
		s.Stages = append(s.Stages, Stage{Target: rate, For: d})
	}
	return s, s.Check()
}

// String is the stages' label, "r=0-10/s in 3 stages".
func (s Stages) String() string {
	lo, hi := s.Start, s.Start
	for _, st := range s.Stages {
		lo, hi = min(lo, st.Target), max(hi, st.Target)
	}
	return fmt.Sprintf("r=%g-%g/s in %d stages", lo, hi, len(s.Stages))
}

// Check says what is wrong with the stages, if anything.
func (s Stages) Check() error {
	rate := func(r float64) bool { return r >= 0 && !math.IsInf(r, 0) }
	if len(s.Stages) == 0 {
		return errors.New("stages: give at least one, TARGET@DURATION")
	}
	if !rate(s.Start) {
		return errors.New("stages: the start rate must be a finite number of requests/s, 0 or more")
	}
	if s.cumulative(math.Inf(1)) <= 0 {
		return errors.New("stages: every rate is 0 for every stage of some length; nothing would start")
	}
	for _, st := range s.Stages {
		if !rate(st.Target) || st.For < 0 {
			return fmt.Errorf("stage %g@%v: want a finite rate, 0 or more, and a duration not negative", st.Target, st.For)
		}
	}
	return s.Gaps.Check()
}

// Finite says the stages end with their last.
func (s Stages) Finite() bool { return true }

// Arrivals implements Pacer: each start says the rate of its moment.
func (s Stages) Arrivals(seed uint64) iter.Seq[Arrival] {
	return curveArrivals(s, s.Gaps, seed, s.rateAt)
}

// segments calls each with every stage's start time, start rate, end
// rate and length in seconds, until each returns false.
func (s Stages) segments(each func(at, from, to, d float64) bool) {
	at, from := 0.0, s.Start
	for _, st := range s.Stages {
		d := st.For.Seconds()
		if !each(at, from, st.Target, d) {
			return
		}
		at, from = at+d, st.Target
	}
}

// rateAt is the rate at t seconds: the line of its stage, the last
// stage's target after it.
func (s Stages) rateAt(t float64) float64 {
	rate := s.Start
	s.segments(func(at, from, to, d float64) bool {
		rate = to
		if t < at+d {
			rate = from + (to-from)*(t-at)/d
			return false
		}
		return true
	})
	return rate
}

// cumulative is the starts expected by t seconds: the area under the
// stages' lines up to t.
func (s Stages) cumulative(t float64) float64 {
	total := 0.0
	s.segments(func(at, from, to, d float64) bool {
		if d == 0 { // a step: no area, on to the next
			return t >= at
		}
		tau := min(t-at, d)
		if tau <= 0 {
			return false
		}
		total += from*tau + (to-from)*tau*tau/(2*d)
		return tau == d
	})
	return total
}

// inverse is when the cumulative count reaches x, past the last stage
// (+Inf) when it never does: within a stage of slope k, the root of
// from*tau + k*tau^2/2 = rest, written 2*rest / (from + sqrt(from^2 +
// 2*k*rest)) so that a slope near 0 loses no digits.
func (s Stages) inverse(x float64) float64 {
	t := math.Inf(1)
	s.segments(func(at, from, to, d float64) bool {
		area := (from + to) * d / 2
		if x > area || d == 0 {
			x -= area
			return true
		}
		k := (to - from) / d
		denom := from + math.Sqrt(max(from*from+2*k*x, 0))
		t = at
		if denom > 0 {
			t += 2 * x / denom
		}
		return false
	})
	return t
}
