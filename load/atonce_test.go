package load

import (
	"testing"
	"time"
)

// TestStartsAtOnce: a closed loop's users start together, capped by its
// requests and warm-up (with sessions, by the sessions those make); a
// rate, a schedule or a ramp spread their starts.
func TestStartsAtOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Profile
		want int
	}{
		{"closed loop", Profile{Concurrency: 64}, 64},
		{"fewer requests than users", Profile{Concurrency: 64, Requests: 10, Warmup: 2}, 12},
		{"a rate", Profile{Concurrency: 64, Rate: 5}, 0},
		{"a ramp of users", Profile{Concurrency: 64, RampUp: time.Second}, 0},
		{"a rate ramp", Profile{Concurrency: 64, Requests: 10, RampStrategy: RampLinear}, 0},
		{"sessions", Profile{Concurrency: 64, Turns: 3}, 64},
		{"fewer sessions than users", Profile{Concurrency: 64, Turns: 3, Requests: 10, Warmup: 2}, 4},
		{"a last session cut short", Profile{Concurrency: 64, Turns: 3, Requests: 10}, 4},
		{"sessions at a rate", Profile{Concurrency: 64, Turns: 3, Rate: 5}, 0},
	} {
		if got := c.p.StartsAtOnce(); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
