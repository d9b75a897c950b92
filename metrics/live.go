package metrics

import (
	"sync"
	"time"
)

// SecondBins counts tokens by the Unix second they arrived, over the last
// 64 seconds, as they stream: what live views (the dashboard, the
// exporter's rolling TPS) draw before any request has ended. Safe for
// concurrent use; the zero value is ready.
type SecondBins struct {
	mu    sync.Mutex
	sec   [64]int64
	bins  [64]int64
	total int64
	first int64 // Unix ns of the first token counted
}

// Add counts tokens that arrived at unixNS.
func (b *SecondBins) Add(unixNS int64, tokens int) {
	sec := unixNS / 1e9
	i := uint64(sec) % uint64(len(b.bins))
	b.mu.Lock()
	switch {
	case b.sec[i] == sec:
		b.bins[i] += int64(tokens)
	case b.sec[i] < sec: // the bin's second has passed: it is this one's now
		b.sec[i], b.bins[i] = sec, int64(tokens)
	}
	if b.total == 0 || unixNS < b.first {
		b.first = unixNS
	}
	b.total += int64(tokens)
	b.mu.Unlock()
}

// Last returns the tokens of each of the n whole seconds before now (n at
// most 63).
func (b *SecondBins) Last(n int, now time.Time) []float64 {
	n = min(n, len(b.bins)-1)
	out := make([]float64, n)
	cur := now.Unix()
	b.mu.Lock()
	defer b.mu.Unlock()
	for j := range out {
		sec := cur - int64(n-j)
		if i := uint64(sec) % uint64(len(b.bins)); b.sec[i] == sec {
			out[j] = float64(b.bins[i])
		}
	}
	return out
}

// Rate is the tokens a second over the n whole seconds before now, or
// over the whole seconds since the first token's when fewer have passed:
// 2.5 s into a run a 10 s window divided its tokens by 10 (40.6 tokens/s
// shown for 173).
func (b *SecondBins) Rate(n int, now time.Time) float64 {
	sum := 0.0
	per := b.Last(n, now)
	for _, v := range per {
		sum += v
	}
	seconds := int64(len(per))
	b.mu.Lock()
	if b.total > 0 {
		seconds = min(seconds, now.Unix()-b.first/1e9)
	}
	b.mu.Unlock()
	return sum / float64(max(seconds, 1))
}

// Cumulative is every token counted over the time since the first, to now.
func (b *SecondBins) Cumulative(now time.Time) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total == 0 {
		return 0
	}
	return float64(b.total) / max(float64(now.UnixNano()-b.first)/1e9, 1e-3)
}
