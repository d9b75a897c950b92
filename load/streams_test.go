package load

import (
	"testing"
	"time"
)

// TestStartsAtOnce: a closed loop's users start together, capped by its
// requests and warm-up (with sessions, by the sessions those make); an
// open loop spreads its starts. Its streams are those users too, a ramp
// of users' once it has risen; an open loop's cap is no stream it must
// hold, but is its limit, as users are a closed loop's.
func TestStartsAtOnce(t *testing.T) {
	for _, c := range []struct {
		name                 string
		p                    Profile
		atOnce, peaks, limit int
	}{
		{"closed loop", Profile{Shape: Users{Count: 64}}, 64, 64, 64},
		{"fewer requests than users", Profile{Shape: Users{Count: 64}, Requests: 10, Warmup: 2}, 12, 12, 64},
		{"a rate", Profile{Shape: Rate{PerSecond: 5}, MaxInFlight: 64}, 0, 0, 64},
		{"a ramp of users", Profile{Shape: Users{Count: 64, RampUp: time.Second}}, 0, 64, 64},
		{"a rate ramp", Profile{Shape: IndexRamp{From: 1, To: 2, Strategy: RampLinear, Requests: 10}, Requests: 10}, 0, 0, 0},
		{"a schedule", Profile{Shape: &fixedPacer{}, MaxInFlight: 64}, 0, 0, 64},
		{"sessions", Profile{Shape: Users{Count: 64}, Sessions: Sessions{Turns: 3}}, 64, 64, 64},
		{"fewer sessions than users", Profile{Shape: Users{Count: 64}, Sessions: Sessions{Turns: 3}, Requests: 10, Warmup: 2}, 4, 4, 64},
		{"a last session cut short", Profile{Shape: Users{Count: 64}, Sessions: Sessions{Turns: 3}, Requests: 10}, 4, 4, 64},
		{"sessions at a rate", Profile{Shape: Rate{PerSecond: 5}, Sessions: Sessions{Turns: 3}}, 0, 0, 0},
	} {
		if got := c.p.StartsAtOnce(); got != c.atOnce {
			t.Errorf("%s: %d at once, want %d", c.name, got, c.atOnce)
		}
		if got := c.p.Streams(); got != c.peaks {
			t.Errorf("%s: %d streams, want %d", c.name, got, c.peaks)
		}
		if got := c.p.Limit(); got != c.limit {
			t.Errorf("%s: limit %d, want %d", c.name, got, c.limit)
		}
	}
}
