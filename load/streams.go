package load

// Streams is how many requests the profile holds in flight at its peak
// for certain: a closed loop's users (capped by the requests it has;
// with sessions, by its sessions), each on a connection of its own, or 0
// for an open loop, whose arrivals decide and whose cap, if any, need
// not be reached.
func (p Profile) Streams() int {
	c, ok := p.Shape.(Crowd)
	if !ok {
		return 0
	}
	n := c.Users()
	if p.Requests > 0 {
		turns := p.Sessions.turns() // a session's turns after its first wait for its answers
		n = min(n, (p.Requests+p.Warmup+turns-1)/turns)
	}
	return max(n, 0)
}

// StartsAtOnce is how many requests the profile sends in its first
// instant: a closed loop's users, all due when the step begins (Streams),
// or 0 where starts are spread (an open loop, users ramping up). A
// client may open that many connections before the step, so that none
// of those requests waits for its dial.
func (p Profile) StartsAtOnce() int {
	if rampUpOf(p.Shape) > 0 {
		return 0
	}
	return p.Streams()
}

// Limit is the most requests the profile may have in flight: a closed
// loop's users, an open loop's cap, or 0 for none. Records keep it as
// their step's concurrency.
func (p Profile) Limit() int {
	if c, ok := p.Shape.(Crowd); ok {
		return c.Users()
	}
	return p.MaxInFlight
}
