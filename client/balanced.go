package client

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/tpsbench/tpsbench/record"
)

// Ways a Balanced client chooses a server for a request.
const (
	BalanceRoundRobin    = "round-robin"     // each in turn
	BalanceLeastInFlight = "least-in-flight" // the one with the fewest requests going (the first of them on a tie)
)

// Balanced sends each request to one of several servers (replicas of one
// model behind one run), as a load balancer in front of them would. Its
// clients stamp records on one clock, the first's.
type Balanced struct {
	clients  []Client
	strategy string
	next     atomic.Uint64
	inFlight []atomic.Int64
}

// NewBalanced balances requests over clients by strategy.
func NewBalanced(clients []Client, strategy string) (*Balanced, error) {
	switch {
	case len(clients) == 0:
		return nil, errors.New("balancing needs a server")
	case strategy != BalanceRoundRobin && strategy != BalanceLeastInFlight:
		return nil, errors.New("the balancing strategy is round-robin or least-in-flight")
	}
	return &Balanced{clients: clients, strategy: strategy, inFlight: make([]atomic.Int64, len(clients))}, nil
}

// Do sends req to the server the strategy chooses; rec says which (URL).
func (b *Balanced) Do(ctx context.Context, req *Request, rec *record.Record) {
	i := b.choose()
	b.inFlight[i].Add(1)
	defer b.inFlight[i].Add(-1)
	b.clients[i].Do(ctx, req, rec)
}

// choose picks a server.
func (b *Balanced) choose() int {
	if b.strategy == BalanceRoundRobin {
		return int((b.next.Add(1) - 1) % uint64(len(b.clients)))
	}
	best := 0
	for i := 1; i < len(b.clients); i++ {
		if b.inFlight[i].Load() < b.inFlight[best].Load() {
			best = i
		}
	}
	return best
}

// Clock implements Client.
func (b *Balanced) Clock() *record.Clock { return b.clients[0].Clock() }

// Sent is what every request carries besides its prompt, as the first
// server's client sends it (the replicas share its settings).
func (b *Balanced) Sent() map[string]any {
	if s, ok := b.clients[0].(interface{ Sent() map[string]any }); ok {
		return s.Sent()
	}
	return nil
}
