package tpsbench

import (
	"context"
	"sync"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/record"
)

// prefillSlots hold a step's requests in prefill (load.Profile.MaxPrefill):
// a request takes a slot before it is sent and gives it back at its first
// token, or at its end if none came. Nil holds nothing.
type prefillSlots chan struct{}

func newPrefillSlots(n int) prefillSlots {
	if n <= 0 {
		return nil
	}
	return make(prefillSlots, n)
}

// take waits for a slot for req and wraps its chunk observer so that its
// first token gives the slot back; it returns what gives it back at the
// request's end (nothing, if its first token did), or false when ctx
// ended first.
func (p prefillSlots) take(ctx context.Context, req *client.Request) (release func(), ok bool) {
	if p == nil {
		return func() {}, true
	}
	select {
	case p <- struct{}{}:
	case <-ctx.Done():
		return nil, false
	}
	var once sync.Once
	release = func() { once.Do(func() { <-p }) }
	next := req.OnChunk
	req.OnChunk = func(rec *record.Record, tokens int) {
		release()
		if next != nil {
			next(rec, tokens)
		}
	}
	return release, true
}
