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
// 2 s, then every 0.1 s; those before 2 s are the ramp's.
func TestRampUpRate(t *testing.T) {
	p := Profile{Rate: 10, Arrivals: Constant, Requests: 12, RampUp: 2 * time.Second}
	var offsets []float64
	offset := 0.0
	for i := range 12 {
		if i > 0 {
			offset = p.rampedOffset(offset, 1)
		}
		offsets = append(offsets, offset)
	}
	for i, got := range offsets {
		want := math.Sqrt(0.4 * float64(i))
		if i > 10 {
			want = 2 + 0.1*float64(i-10)
		}
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("request %d at %v s, want %v", i, got, want)
		}
		phase := p.phaseOf(time.Duration(got * float64(time.Second)))
		if (phase == PhaseRampUp) != (got < 2-1e-9) {
			t.Errorf("request %d at %v s: phase %q", i, got, phase)
		}
	}
}

// TestRampUpUsers: closed loop, 4 users rising over 40 ms: user w starts
// w * 10 ms after the step's start (so 1 to 4 in flight), and the requests
// started in the first 40 ms are the ramp's, the others steady.
func TestRampUpUsers(t *testing.T) {
	p := Profile{Concurrency: 4, Requests: 200, RampUp: 40 * time.Millisecond}
	for w := range 4 {
		if got := p.userStart(w, 4); got != time.Duration(w)*10*time.Millisecond {
			t.Errorf("user %d starts at %v", w, got)
		}
	}
	log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
	collect(Run(context.Background(), p, log.do(2*time.Millisecond)))
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
	p := Profile{Concurrency: 8, Requests: 50, RampUp: 300 * time.Millisecond, RampUpShape: RampExponential}
	want := map[int]time.Duration{0: 0, 1: 100 * time.Millisecond, 3: 200 * time.Millisecond, 7: 300 * time.Millisecond, 2: 158496250 * time.Nanosecond}
	for w, at := range want {
		if got := p.userStart(w, 8); (got - at).Abs() > time.Microsecond {
			t.Errorf("user %d starts at %v, want %v", w, got, at)
		}
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	for _, bad := range []Profile{
		{Rate: 10, Requests: 5, RampUp: time.Second, RampUpShape: RampExponential},
		{Concurrency: 2, Requests: 5, RampUpShape: RampExponential},
		{Concurrency: 2, Requests: 5, RampUp: time.Second, RampUpShape: "cubic"},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestCoolDown: in a 100 ms step whose last 30 ms are its cool-down, the
// requests started then are marked so, and none before.
func TestCoolDown(t *testing.T) {
	log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
	p := Profile{Concurrency: 1, Duration: 100 * time.Millisecond, CoolDown: 30 * time.Millisecond}
	collect(Run(context.Background(), p, log.do(3*time.Millisecond)))
	var first time.Time
	for _, j := range log.jobs {
		if first.IsZero() || j.Scheduled.Before(first) {
			first = j.Scheduled
		}
	}
	cool := 0
	for _, j := range log.jobs {
		if j.Phase == PhaseCoolDown {
			cool++
		}
		// the step began no later than its first request: a request 70
		// ms or more after it began may be the cool-down's, none before
		if j.Phase == PhaseCoolDown && j.Scheduled.Sub(first) < 0 {
			t.Errorf("a cool-down request at the start")
		}
	}
	if cool == 0 {
		t.Error("no request marked as the cool-down's")
	}
	for _, bad := range []Profile{{Concurrency: 1, Requests: 3, CoolDown: time.Second}, {Concurrency: 1, Duration: time.Second, CoolDown: 2 * time.Second},
		{Concurrency: 1, Requests: 3, RampUp: -time.Second}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
