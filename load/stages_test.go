package load

import (
	"math"
	"testing"
	"time"
)

// TestStagesArrivals: constant arrivals over stages worked by hand: from
// 0 to 10/s over 2 s (the k-th start where 10 t^2 / 4 = k, at sqrt(0.4 k)
// s, as a ramp-up), a step to 20/s held 1 s (every 50 ms), then 20 to 0
// over 1 s (the last 10 starts where the area left runs out), and no
// more: 10 + 20 + 10 starts and the 41st never comes. Each says the
// rate of its moment.
func TestStagesArrivals(t *testing.T) {
	s, err := ParseStages("10@2s,20@0s,20@1s,0@1s", Gaps{})
	if err != nil {
		t.Fatal(err)
	}
	var got []Arrival
	for a := range s.Arrivals(1) {
		got = append(got, a)
	}
	if len(got) != 41 {
		t.Fatalf("%d starts, want 41 (0 to 40 starts' worth, the first at 0)", len(got))
	}
	for k, a := range got {
		var want, rate float64
		switch {
		case k < 10:
			want, rate = math.Sqrt(0.4*float64(k)), 5*math.Sqrt(0.4*float64(k))
		case k <= 30: // from the step at 2 s
			want, rate = 2+0.05*float64(k-10), 20
		default: // 20 t - 10 t^2 = k - 30 within the last second
			x := float64(k - 30)
			tau := (20 - math.Sqrt(400-40*x)) / 20
			want, rate = 3+tau, 20-20*tau
		}
		if math.Abs(a.At.Seconds()-want) > 1e-6 || math.Abs(a.Rate-rate) > 1e-4 {
			t.Errorf("start %d at %v s, %v/s; want %v s, %v/s", k, a.At.Seconds(), a.Rate, want, rate)
		}
	}
	if !s.Finite() || s.String() != "r=0-20/s in 4 stages" {
		t.Errorf("finite %v, label %q", s.Finite(), s.String())
	}
}

// TestStagesStartRate: a bare first rate is where the stages start.
func TestStagesStartRate(t *testing.T) {
	s, err := ParseStages("4, 4@1s", Gaps{})
	if err != nil || s.Start != 4 || len(s.Stages) != 1 {
		t.Fatalf("%+v, %v", s, err)
	}
	n := 0
	for a := range s.Arrivals(1) {
		if want := time.Duration(n) * 250 * time.Millisecond; (a.At - want).Abs() > time.Microsecond {
			t.Errorf("start %d at %v, want %v", n, a.At, want)
		}
		n++
	}
	if n != 5 {
		t.Errorf("%d starts in 1 s at 4/s, want 5 (at 0 and each 250 ms)", n)
	}
}

func TestStagesRefused(t *testing.T) {
	for _, spec := range []string{"", "x@1s", "5@forever", "1,2", "-1@1s", "0@1s", "inf@1s", "5@-1s", "NaN@1s", "0@1s,0@0s"} {
		if _, err := ParseStages(spec, Gaps{}); err == nil {
			t.Errorf("stages %q accepted", spec)
		}
	}
	if _, err := ParseStages("5@1s", Gaps{Process: Gamma}); err == nil {
		t.Error("gamma gaps without a burstiness accepted")
	}
}
