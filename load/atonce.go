package load

// Streams is how many requests the profile holds in flight at its peak
// for certain: a closed loop's users (capped by the requests it has; with
// sessions, by its sessions), each on a connection of its own, or 0 where
// arrivals decide (a rate, a schedule, a ramp of rates), whose cap, if
// any, need not be reached.
func (p Profile) Streams() int {
	if p.Rate != 0 || p.Schedule != nil || p.RampStrategy != "" {
		return 0
	}
	n := p.Concurrency
	if p.Requests > 0 {
		starts := p.Requests + p.Warmup
		if p.Turns > 1 { // a session's turns after its first wait for its answers
			starts = (starts + p.Turns - 1) / p.Turns
		}
		n = min(n, starts)
	}
	return max(n, 0)
}

// StartsAtOnce is how many requests the profile sends in its first
// instant: a closed loop's users, all due when the step begins (Streams),
// or 0 where starts are spread (a rate, a schedule, a ramp). A client may
// open that many connections before the step, so that none of those
// requests waits for its dial.
func (p Profile) StartsAtOnce() int {
	if p.RampUp > 0 {
		return 0
	}
	return p.Streams()
}
