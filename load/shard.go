package load

import (
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"time"
)

// Shard returns shard i (0-based) of n of the profile, for spreading one
// run over n load generators, so that the shards together make the
// profile: an open loop's shard sends every n-th of the whole profile's
// arrivals, from its i-th, at their times (the union is the profile's
// arrivals exactly, spread and ramps included); a closed loop's runs
// every n-th user, each starting when it would have; the request counts
// and the cap are shared out. Each shard draws its own think times and
// cancellations.
func (p Profile) Shard(i, n int) (Profile, error) {
	if n < 1 || i < 0 || i >= n {
		return p, fmt.Errorf("shard %d/%d: want 0 <= index < count", i, n)
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	share := func(total int) int {
		s := total / n
		if i < total%n {
			s++
		}
		return s
	}
	q := p
	switch s := p.Shape.(type) {
	case Crowd:
		if share(s.Users()) == 0 {
			return p, fmt.Errorf("shard %d/%d: %d users leave this shard none", i, n, s.Users())
		}
		q.Shape = shardCrowd{Crowd: s, i: i, n: n}
	case Pacer:
		if _, ok := s.(finite); ok {
			// a trace pairs each arrival with its own entry: it is
			// shared out by its entries as it is read
			return p, errors.New("a trace is sharded by its entries as it is read, not by its arrivals")
		}
		q.Shape = shardPacer{Pacer: s, i: i, n: n, seed: p.Seed}
	}
	if p.MaxInFlight > 0 {
		if q.MaxInFlight = share(p.MaxInFlight); q.MaxInFlight == 0 {
			return p, fmt.Errorf("shard %d/%d: a cap of %d in flight leaves this shard nothing", i, n, p.MaxInFlight)
		}
	}
	if p.MaxPrefill > 0 {
		if q.MaxPrefill = share(p.MaxPrefill); q.MaxPrefill == 0 {
			return p, fmt.Errorf("shard %d/%d: a cap of %d in prefill leaves this shard nothing", i, n, p.MaxPrefill)
		}
	}
	if p.Requests > 0 {
		if q.Requests = share(p.Requests); q.Requests == 0 {
			return p, fmt.Errorf("shard %d/%d: %d requests leave this shard none", i, n, p.Requests)
		}
	}
	q.Warmup = share(p.Warmup)
	q.Seed = p.Seed + uint64(i)*0x9e3779b97f4a7c15
	return q, nil
}

// shardPacer is shard i of n of a pacer: every n-th arrival, from the
// i-th, of the whole pacer's, drawn from the whole profile's seed.
type shardPacer struct {
	Pacer
	i, n int
	seed uint64
}

// String names the whole load the shard is part of.
func (s shardPacer) String() string { return s.Pacer.String() }

// Arrivals implements Pacer.
func (s shardPacer) Arrivals(uint64) iter.Seq[Arrival] {
	return func(yield func(Arrival) bool) {
		k := 0
		for a := range s.Pacer.Arrivals(s.seed) {
			if k%s.n == s.i && !yield(a) {
				return
			}
			k++
		}
	}
}

func (s shardPacer) rampUp() time.Duration { return rampUpOf(s.Pacer) }

func (s shardPacer) warmup(p Profile) Shape {
	switch w := warmupOf(Profile{Shape: s.Pacer, MaxInFlight: p.MaxInFlight}).(type) {
	case Pacer:
		return shardPacer{Pacer: w, i: s.i, n: s.n, seed: s.seed}
	default:
		return w // a crowd of the shard's own cap
	}
}

// shardCrowd is shard i of n of a crowd: its users i, i+n, i+2n...
type shardCrowd struct {
	Crowd
	i, n int
}

// String names the whole load the shard is part of.
func (s shardCrowd) String() string { return s.Crowd.String() }

// Users implements Crowd: this shard's share.
func (s shardCrowd) Users() int { return (s.Crowd.Users() - s.i + s.n - 1) / s.n }

// Start implements Crowd: as the whole crowd's user of this place.
func (s shardCrowd) Start(w int) time.Duration { return s.Crowd.Start(w*s.n + s.i) }

// Pause implements Crowd.
func (s shardCrowd) Pause(rng *rand.Rand) time.Duration { return s.Crowd.Pause(rng) }

func (s shardCrowd) rampUp() time.Duration { return rampUpOf(s.Crowd) }
