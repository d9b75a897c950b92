package sched

import "time"

// FirstTokenWait is where a request's first token waited, from its Submit
// to the step that made it; the three durations add up to that time.
type FirstTokenWait struct {
	// Queued is the time before the request joined the batch: behind the
	// step that was running when it came (requests join between steps),
	// and for a free sequence when MaxSeqs were running.
	Queued time.Duration
	// Prefill is the time of the steps that fed its prompt, shared with
	// the other sequences' tokens in them; PrefillSteps counts them and
	// SharedTokens counts those tokens not its own (other prompts, and a
	// token of each decoding sequence).
	Prefill      time.Duration
	PrefillSteps int
	SharedTokens int
	// Stalled is the rest of its time in the batch: steps that fed none
	// of its prompt (chunked prefill spent the step's budget on others),
	// a prefix cache's restore, and sampling.
	Stalled time.Duration
}

// timePrefill adds a step of entries that took took to the prefill time
// of every job whose prompt it fed.
func (b *batch) timePrefill(took time.Duration, entries int) {
	for _, j := range b.running {
		if j.feeding > 0 {
			j.prefill += took
			j.prefillSteps++
			j.shared += entries - j.feeding
			j.feeding = 0
		}
	}
}

// firstTokenWait is where j's time to its first token, made at now, went.
func (j *job) firstTokenWait(now time.Time) *FirstTokenWait {
	inBatch := now.Sub(j.admitted)
	return &FirstTokenWait{
		Queued:       j.admitted.Sub(j.submitted),
		Prefill:      j.prefill,
		PrefillSteps: j.prefillSteps,
		SharedTokens: j.shared,
		Stalled:      max(inBatch-j.prefill, 0),
	}
}
