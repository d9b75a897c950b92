package sched

// The chunked-prefill budget: each step's prompt tokens sized from the
// step costs the scheduler measures as it runs.

// learn updates the step-cost averages from a step of entries, of which
// prompt were prompt tokens.
func (s *Scheduler) learn(seconds float64, prompt, entries int) {
	const a = 0.2
	decode := entries - prompt
	switch {
	case prompt == 0:
		if s.decodeStep == 0 {
			s.decodeStep = seconds
		}
		s.decodeStep += a * (seconds - s.decodeStep)
	case decode > 0 && s.decodeStep > 0:
		per := max(seconds-s.decodeStep, 0) / float64(prompt)
		if s.promptToken == 0 {
			s.promptToken = per
		}
		s.promptToken += a * (per - s.promptToken)
	case decode == 0:
		per := seconds / float64(prompt)
		if s.promptToken == 0 {
			s.promptToken = per
		}
		s.promptToken += a * (per - s.promptToken)
	}
}

// prefillBudget is how many prompt tokens the next step may take.
func (s *Scheduler) prefillBudget(running []*job) int {
	if !s.opts.ChunkedPrefill || s.opts.StallFactor <= 0 {
		return s.opts.MaxPrefillTokens
	}
	decoding := false
	for _, j := range running {
		if j.fed >= len(j.req.Prompt) {
			decoding = true
			break
		}
	}
	if !decoding {
		return s.opts.MaxPrefillTokens // nobody to stall
	}
	if s.decodeStep == 0 || s.promptToken == 0 {
		return 1 // learn the costs first
	}
	n := int((s.opts.StallFactor - 1) * s.decodeStep / s.promptToken)
	return min(max(n, 1), s.opts.MaxPrefillTokens)
}
