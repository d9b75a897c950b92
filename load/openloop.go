package load

import (
	"sync"
	"time"
)

// openLoop starts requests at the pacer's arrivals, fixed in advance: a
// slow server never delays the next start (no coordinated omission). A
// start that must wait for a slot under the cap keeps its due time, so
// the wait shows as its lag; the pacer is not read on meanwhile.
func (ph *phase) openLoop(pc Pacer) {
	var wg sync.WaitGroup
	defer wg.Wait()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	u := 0
	for a := range pc.Arrivals(ph.p.Seed) {
		if !ph.more(u) {
			return
		}
		at := ph.start.Add(a.At)
		if !ph.deadline.IsZero() && !at.Before(ph.deadline) {
			return
		}
		if !sleepUntil(ph.ctx, timer, at) || !ph.takeSlot() {
			return
		}
		start := u
		wg.Go(func() { ph.send(start, at, a.Rate, nil) })
		u++
	}
}
