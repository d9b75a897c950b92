package load

import "fmt"

// Shard returns shard i (0-based) of n of the profile, for spreading one
// run over n load generators: each gets its share of the concurrency, the
// request counts and the rate, and its own arrival seed, so that the shards
// together make the profile.
func (p Profile) Shard(i, n int) (Profile, error) {
	if n < 1 || i < 0 || i >= n {
		return p, fmt.Errorf("shard %d/%d: want 0 <= index < count", i, n)
	}
	share := func(total int) int {
		s := total / n
		if i < total%n {
			s++
		}
		return s
	}
	q := p
	if p.Concurrency > 0 {
		if q.Concurrency = share(p.Concurrency); q.Concurrency == 0 {
			return p, fmt.Errorf("shard %d/%d: a concurrency of %d leaves this shard nothing", i, n, p.Concurrency)
		}
	}
	if p.Requests > 0 {
		if q.Requests = share(p.Requests); q.Requests == 0 {
			return p, fmt.Errorf("shard %d/%d: %d requests leave this shard none", i, n, p.Requests)
		}
	}
	q.Warmup = share(p.Warmup)
	q.Rate = p.Rate / float64(n)
	q.Seed = p.Seed + uint64(i)*0x9e3779b97f4a7c15
	return q, nil
}
