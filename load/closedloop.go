package load

import (
	"sync"
	"sync/atomic"
	"time"
)

// closedLoop runs the crowd's users: each begins at its start (at once
// in a warm-up), then sends one start's requests after another, each as
// its last ended, or a pause after it.
func (ph *phase) closedLoop(c Crowd) {
	users := c.Users()
	if ph.n > 0 {
		users = min(users, (ph.n+ph.turns-1)/ph.turns)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	opening := ph.p.firstWave(users, ph.warm)
	startUsers(&wg, users, func(w int) {
		place := opening.seat()
		defer place.leave()             // a user that had no request to send
		rng := sessionRNG(ph.p.Seed, w) // a user's pauses are its own
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		at := time.Now()
		if !ph.warm {
			// every user's first request was due at its start: a late
			// wake-up (behind a thousand users starting at once) shows
			// as the client's lag
			at = ph.start.Add(c.Start(w))
			if !sleepUntil(ph.ctx, timer, at) {
				return
			}
		}
		for first := true; ; first = false {
			if !first {
				at = time.Now().Add(c.Pause(rng))
				if ph.past(at) || !sleepUntil(ph.ctx, timer, at) {
					return
				}
			}
			u := int(next.Add(1) - 1)
			if !ph.more(u) || ph.past(at) || !ph.send(u, at, 0, place) {
				return
			}
			place = nil
		}
	})
	wg.Wait()
}
