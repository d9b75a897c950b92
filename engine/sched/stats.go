package sched

import "slices"

// countStep adds a step of tokens tokens to the stats.
func (s *Scheduler) countStep(tokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Steps++
	s.stats.StepTokens += uint64(tokens)
	i, _ := slices.BinarySearch(StepSizeBounds[:], tokens) // the first bound >= tokens
	s.stats.StepSizes[i]++
}

// publish updates the stats /metrics reads.
func (s *Scheduler) publish(b *batch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Running = len(b.running)
	s.stats.CacheBytes = 0
	for _, j := range b.running {
		s.stats.CacheBytes += j.seq.CacheBytes()
	}
	if s.prefix != nil {
		s.stats.PrefixQueries, s.stats.PrefixHits, s.stats.PrefixBytes = s.prefix.queries, s.prefix.hits, s.prefix.used
	}
}
