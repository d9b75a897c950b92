package load

import (
	"testing"
	"time"
)

// TestStartsAtOnce: a closed loop's users start together, capped by its
// requests and warm-up (with sessions, by the sessions those make); a
// rate, a schedule or a ramp spread their starts. Its streams are those
// users too, a ramp of users' once it has risen; a rate's cap is no
// stream it must hold.
func TestStartsAtOnce(t *testing.T) {
	for _, c := range []struct {
		name          string
		p             Profile
		atOnce, peaks int
	}{
		{"closed loop", Profile{Concurrency: 64}, 64, 64},
		{"fewer requests than users", Profile{Concurrency: 64, Requests: 10, Warmup: 2}, 12, 12},
		{"a rate", Profile{Concurrency: 64, Rate: 5}, 0, 0},
		{"a ramp of users", Profile{Concurrency: 64, RampUp: time.Second}, 0, 64},
		{"a rate ramp", Profile{Concurrency: 64, Requests: 10, RampStrategy: RampLinear}, 0, 0},
		{"a schedule", Profile{Concurrency: 64, Schedule: &offsets{}}, 0, 0},
		{"sessions", Profile{Concurrency: 64, Turns: 3}, 64, 64},
		{"fewer sessions than users", Profile{Concurrency: 64, Turns: 3, Requests: 10, Warmup: 2}, 4, 4},
		{"a last session cut short", Profile{Concurrency: 64, Turns: 3, Requests: 10}, 4, 4},
		{"sessions at a rate", Profile{Concurrency: 64, Turns: 3, Rate: 5}, 0, 0},
	} {
		if got := c.p.StartsAtOnce(); got != c.atOnce {
			t.Errorf("%s: %d at once, want %d", c.name, got, c.atOnce)
		}
		if got := c.p.Streams(); got != c.peaks {
			t.Errorf("%s: %d streams, want %d", c.name, got, c.peaks)
		}
	}
}
