package sched_test

import (
	"context"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/engine/sched"
)

// firstWait submits a request and returns where its first token waited,
// with the time from just before its Submit to the token's receipt.
func firstWait(t *testing.T, s *sched.Scheduler, prompt, maxTokens int) (*sched.FirstTokenWait, time.Duration, <-chan sched.Event) {
	t.Helper()
	p := make([]int, prompt)
	for i := range p {
		p[i] = 3 + i%50
	}
	began := time.Now()
	ev, err := s.Submit(context.Background(), sched.Request{Prompt: p, MaxTokens: maxTokens, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	e := <-ev
	if e.Done || e.Wait == nil {
		t.Fatalf("first event %+v", e)
	}
	return e.Wait, time.Since(began), ev
}

func drain(ev <-chan sched.Event) {
	for range ev {
	}
}

// TestFirstTokenWaitParts: a request alone has its prompt fed in one step
// (whole) or in ceil(prompt / chunk) steps (chunked), with no other token
// in them; its parts add to no more than the time its caller waited.
func TestFirstTokenWaitParts(t *testing.T) {
	for _, c := range []struct {
		opts  sched.Options
		steps int
	}{{sched.Options{MaxSeqs: 2}, 1}, {sched.Options{MaxSeqs: 2, ChunkedPrefill: true, MaxPrefillTokens: 4}, 3}} {
		s := sched.New(model(t), c.opts)
		w, waited, ev := firstWait(t, s, 10, 3)
		drain(ev)
		if w.PrefillSteps != c.steps || w.SharedTokens != 0 || w.Prefill <= 0 || w.Queued < 0 || w.Stalled < 0 || w.Queued+w.Prefill+w.Stalled > waited {
			t.Errorf("%+v: %+v after %v; want %d steps of its own", c.opts, w, waited, c.steps)
		}
		// later tokens carry none
		w, _, ev = firstWait(t, s, 10, 3)
		for e := range ev {
			if e.Wait != nil {
				t.Errorf("a later event with a wait: %+v (first %+v)", e, w)
			}
		}
		s.Close()
	}
}

// TestQueuedForASequence: with one sequence, a request submitted behind
// another waits in the queue for the whole of the first's time to its
// first token at least (less the moment between their Submits), by the
// scheduler's own account of that first request.
func TestQueuedForASequence(t *testing.T) {
	s := sched.New(model(t), sched.Options{MaxSeqs: 1})
	defer s.Close()
	p := make([]int, 12)
	for i := range p {
		p[i] = 5 + i
	}
	began := time.Now()
	first, err := s.Submit(context.Background(), sched.Request{Prompt: p, MaxTokens: 20, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Submit(context.Background(), sched.Request{Prompt: p, MaxTokens: 2, IgnoreEOS: true})
	apart := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	a := (<-first).Wait
	drain(first)
	b := (<-second).Wait
	drain(second)
	if a == nil || b == nil {
		t.Fatalf("waits %v, %v", a, b)
	}
	if b.Queued < a.Queued+a.Prefill+a.Stalled-apart || b.PrefillSteps != 1 {
		t.Errorf("the second queued %v, the first took %+v to its first token (Submits %v apart)", b.Queued, a, apart)
	}
}
