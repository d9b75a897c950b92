package load

import (
	"math"
	"testing"
	"time"
)

// TestSineArrivals: constant starts on a sine of mean 10/s swinging by 5
// every 2 s come where its integral, 10t + (5/pi)(1 - cos(pi t)) from the
// mean rising, reaches each whole number: 20 a period, the first at 0,
// the gaps shortest at the peak (t = 0.5 s, 15/s) and longest at the
// trough (t = 1.5 s, 5/s); starting at the peak moves the whole curve.
func TestSineArrivals(t *testing.T) {
	s, err := ParseSine("mean=10,amplitude=5,period=2s", Gaps{})
	if err != nil {
		t.Fatal(err)
	}
	integral := func(t float64) float64 { return 10*t + 5/math.Pi*(1-math.Cos(math.Pi*t)) }
	var at []float64
	for a := range s.Arrivals(1) {
		if a.Rate != 10 {
			t.Errorf("start %d offered at %v/s, want the mean 10", len(at), a.Rate)
		}
		if at = append(at, a.At.Seconds()); len(at) == 41 {
			break
		}
	}
	for k, x := range at {
		if math.Abs(integral(x)-float64(k)) > 1e-6 {
			t.Errorf("start %d at %v s, where the integral is %v", k, x, integral(x))
		}
	}
	if math.Abs(at[20]-2) > 1e-6 || math.Abs(at[40]-4) > 1e-6 {
		t.Errorf("start 20 at %v s and 40 at %v, want a period's 20 starts every 2 s", at[20], at[40])
	}
	gapAt := func(x float64) float64 {
		for k := 1; k < len(at); k++ {
			if at[k] > x {
				return at[k] - at[k-1]
			}
		}
		return 0
	}
	if peak, trough := gapAt(0.5), gapAt(1.5); !(math.Abs(peak-1.0/15) < 0.005 && math.Abs(trough-1.0/5) < 0.02) {
		t.Errorf("gap %v s at the peak (want about 1/15), %v at the trough (about 1/5)", peak, trough)
	}
	s.StartAt = "peak"
	for a := range s.Arrivals(1) {
		if a.At == 0 {
			continue
		}
		if want := 1.0 / 15; math.Abs(a.At.Seconds()-want) > 0.002 {
			t.Errorf("from the peak, the second start at %v, want about %v s", a.At, want)
		}
		break
	}
	if s.String() != "r=10±5/s per 2s" {
		t.Errorf("label %q", s.String())
	}
}

// TestSineRefused: a sine whose rate would fall below 0, with no period,
// or read from a spec that lacks a part or names one unknown.
func TestSineRefused(t *testing.T) {
	for _, spec := range []string{"", "mean=10,amplitude=11,period=1s", "mean=10,amplitude=5", "mean=0,amplitude=0,period=1s",
		"mean=10,amplitude=5,period=0s", "mean=10,amplitude=5,period=1s,start=noon", "mean=10,amplitude=-1,period=1s",
		"mean=10,amplitude=5,period=1s,tilt=3", "mean=ten,amplitude=5,period=1s", "mean=inf,amplitude=5,period=1s"} {
		if _, err := ParseSine(spec, Gaps{}); err == nil {
			t.Errorf("sine %q accepted", spec)
		}
	}
	if _, err := ParseSine("mean=10,amplitude=10,period=1s,start=trough", Gaps{Process: Poisson}); err != nil {
		t.Errorf("a sine touching 0 refused: %v", err)
	}
	if (Sine{Mean: 1, Period: time.Second}).Check() != nil {
		t.Error("a sine of no amplitude (a constant rate) refused")
	}
}
