package load

import (
	"context"
	"math"
	"testing"
	"time"
)

// TestRampUpRate: constant arrivals rising to 10 requests/s over 2 s come
// where the ramp's cumulative rate (10 t^2 / 4) reaches each whole
// number, worked by hand: request i at sqrt(0.4 i) s up to the 10th at
// 2 s, then every 0.1 s; those before 2 s are the ramp's, and every one
// says it was offered at the step's 10/s.
func TestRampUpRate(t *testing.T) {
	r := Rate{PerSecond: 10, RampUp: 2 * time.Second}
	ph := &phase{p: Profile{Shape: r}, shape: r}
	i := 0
	for a := range r.Arrivals(1) {
		want := math.Sqrt(0.4 * float64(i))
		if i > 10 {
			want = 2 + 0.1*float64(i-10)
		}
		if got := a.At.Seconds(); math.Abs(got-want) > 1e-9 || a.Rate != 10 {
			t.Errorf("request %d at %v s offered at %v/s, want %v s at 10/s", i, got, a.Rate, want)
		}
		phase := ph.phaseOf(ph.start.Add(a.At))
		if (phase == PhaseRampUp) != (a.At.Seconds() < 2-1e-9) {
			t.Errorf("request %d at %v: phase %q", i, a.At, phase)
		}
		if i++; i == 12 {
			break
		}
	}
	if w := warmupOf(Profile{Shape: r}); w != (Rate{PerSecond: 10}) {
		t.Errorf("a ramped rate warms up as %v, want its steady rate", w)
	}
}

// TestRateWithoutRampUp: a rate's starts are the sums of its gaps over
// the rate, the first at once, whatever the process.
func TestRateWithoutRampUp(t *testing.T) {
	r := Rate{PerSecond: 4, Gaps: Gaps{Process: Poisson}}
	rng := arrivalRNG(9)
	sum, i := 0.0, 0
	for a := range r.Arrivals(9) {
		if i > 0 {
			sum += rng.ExpFloat64()
		}
		if want := sum / 4; math.Abs(a.At.Seconds()-want) > 1e-9 {
			t.Fatalf("start %d at %v s, want %v", i, a.At.Seconds(), want)
		}
		if i++; i == 50 {
			break
		}
	}
}

// TestRampUpUsers: closed loop, 4 users rising over 40 ms: user w starts
// w * 10 ms after the step's start (so 1 to 4 in flight), and the requests
// started in the first 40 ms are the ramp's, the others steady.
func TestRampUpUsers(t *testing.T) {
	u := Users{Count: 4, RampUp: 40 * time.Millisecond}
	for w := range 4 {
		if got := u.Start(w); got != time.Duration(w)*10*time.Millisecond {
			t.Errorf("user %d starts at %v", w, got)
		}
	}
	log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
	collect(Run(context.Background(), Profile{Shape: u, Requests: 200}, log.do(2*time.Millisecond)))
	ramp, steady := 0, 0
	var lastRamp, firstSteady time.Time
	for _, j := range log.jobs {
		switch j.Phase {
		case PhaseRampUp:
			ramp++
			if j.Scheduled.After(lastRamp) {
				lastRamp = j.Scheduled
			}
		case "":
			steady++
			if firstSteady.IsZero() || j.Scheduled.Before(firstSteady) {
				firstSteady = j.Scheduled
			}
		}
	}
	if ramp == 0 || steady == 0 || !firstSteady.After(lastRamp) {
		t.Errorf("%d ramp and %d steady requests; the last ramp one at %v, the first steady one at %v", ramp, steady, lastRamp, firstSteady)
	}
}

// TestRampUpUsersExponential: 8 users over 300 ms, doubling at even
// steps: 1 at 0, 2 at 100 ms, 4 at 200 ms, 8 at 300 ms, and those between
// on the same curve (user w at 300 ms * log2(w+1) / 3).
func TestRampUpUsersExponential(t *testing.T) {
	u := Users{Count: 8, RampUp: 300 * time.Millisecond, RampShape: RampExponential}
	want := map[int]time.Duration{0: 0, 1: 100 * time.Millisecond, 3: 200 * time.Millisecond, 7: 300 * time.Millisecond, 2: 158496250 * time.Nanosecond}
	for w, at := range want {
		if got := u.Start(w); (got - at).Abs() > time.Microsecond {
			t.Errorf("user %d starts at %v, want %v", w, got, at)
		}
	}
	if err := u.Check(); err != nil {
		t.Error(err)
	}
	for _, bad := range []Users{
		{Count: 2, RampShape: RampExponential},
		{Count: 2, RampUp: time.Second, RampShape: "cubic"},
		{Count: 2, RampUp: -time.Second},
		{Count: 2, Think: Think{Mean: -time.Second}},
	} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if (Rate{PerSecond: 1, RampUp: -time.Second}).Check() == nil {
		t.Error("a negative ramp-up of a rate accepted")
	}
}

// TestCoolDown: in a 100 ms step whose last 30 ms are its cool-down, the
// requests started then are marked so, and none before.
func TestCoolDown(t *testing.T) {
	log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
	p := Profile{Shape: Users{Count: 1}, Duration: 100 * time.Millisecond, CoolDown: 30 * time.Millisecond}
	began := time.Now()
	collect(Run(context.Background(), p, log.do(3*time.Millisecond)))
	cool := 0
	for _, j := range log.jobs {
		if j.Phase == PhaseCoolDown {
			cool++
			// the step began after began: a request less than 70 ms
			// after began is before its cool-down
			if j.Scheduled.Sub(began) < 70*time.Millisecond {
				t.Errorf("a cool-down request %v after the run began", j.Scheduled.Sub(began))
			}
		}
	}
	if cool == 0 {
		t.Error("no request marked as the cool-down's")
	}
	for _, bad := range []Profile{
		{Shape: Users{Count: 1}, Requests: 3, CoolDown: time.Second},
		{Shape: Users{Count: 1}, Duration: time.Second, CoolDown: 2 * time.Second},
		{Shape: Users{Count: 1}, Duration: time.Second, CoolDown: -time.Second},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
