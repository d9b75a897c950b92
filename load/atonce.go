package load

// StartsAtOnce is how many requests the profile sends in its first
// instant: a closed loop's users, all due when the step begins (capped by
// the requests it has; with sessions, each user's first turn), or 0 where
// starts are spread (a rate, a schedule, a ramp). A client may open that
// many connections before the step, so that none of those requests waits
// for its dial.
func (p Profile) StartsAtOnce() int {
	if p.Rate != 0 || p.Schedule != nil || p.RampStrategy != "" || p.RampUp > 0 {
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
