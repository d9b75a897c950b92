package client

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// heldClient answers each request when told to, and counts them.
type heldClient struct {
	id      int
	release chan struct{}
	mu      sync.Mutex
	got     int
}

func (h *heldClient) Do(_ context.Context, _ *Request, rec *record.Record) {
	h.mu.Lock()
	h.got++
	h.mu.Unlock()
	rec.Seq = h.id
	<-h.release
}

func (h *heldClient) Clock() *record.Clock { return nil }

// TestLeastInFlight: each request goes to the server with the fewest
// requests going, the first of them on a tie: with server 0 holding two
// and server 1 one, the next goes to 1, then (a tie) to 0... held to the
// counts each server saw.
func TestLeastInFlight(t *testing.T) {
	a, b := &heldClient{id: 0, release: make(chan struct{})}, &heldClient{id: 1, release: make(chan struct{})}
	bal, err := NewBalanced([]Client{a, b}, BalanceLeastInFlight)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	send := func() {
		wg.Add(1)
		started := make(chan struct{})
		go func() {
			defer wg.Done()
			close(started)
			bal.Do(context.Background(), &Request{}, &record.Record{})
		}()
		<-started
	}
	// one at a time, each held: 0 (tie), 1, 0 (tie), 1
	for i := range 4 {
		send()
		for { // until it is counted where it went
			a.mu.Lock()
			b.mu.Lock()
			n := a.got + b.got
			b.mu.Unlock()
			a.mu.Unlock()
			if n == i+1 {
				break
			}
			runtime.Gosched()
		}
	}
	if a.got != 2 || b.got != 2 {
		t.Errorf("held 2 and 2 apart: %d and %d", a.got, b.got)
	}
	b.release <- struct{}{} // one of b's ends: b has the fewest
	for bal.inFlight[1].Load() != 1 {
		runtime.Gosched()
	}
	send()
	for {
		b.mu.Lock()
		n := b.got
		b.mu.Unlock()
		if n == 3 {
			break
		}
		a.mu.Lock()
		if a.got == 3 {
			a.mu.Unlock()
			t.Fatal("went to the server with more in flight")
		}
		a.mu.Unlock()
		runtime.Gosched()
	}
	close(a.release)
	close(b.release)
	wg.Wait()
	if _, err := NewBalanced([]Client{a}, "random"); err == nil {
		t.Error("an unknown strategy accepted")
	}
}
