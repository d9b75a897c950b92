package load

// StartsAtOnce is how many requests the profile sends in its first
// instant: a closed loop's users, all due when the step begins (capped by
// the requests it has), or 0 where starts are spread (a rate, a schedule,
// a ramp, sessions). A client may open that many connections before the
// step, so that none of those requests waits for its dial.
func (p Profile) StartsAtOnce() int {
	if p.Rate != 0 || p.Schedule != nil || p.RampStrategy != "" || p.RampUp > 0 || p.Turns > 1 {
		return 0
	}
	n := p.Concurrency
	if p.Requests > 0 {
		n = min(n, p.Requests+p.Warmup)
	}
	return max(n, 0)
}
