package sched_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/sched"
)

// schedulerOnOneP is a scheduler of one sequence at a time over the tiny
// model on one thread, with Go running one goroutine at a time until the
// test ends: the model's thread holds every P there is.
func schedulerOnOneP(t *testing.T) *sched.Scheduler {
	t.Helper()
	procs := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(procs) })
	s := sched.New(synthModelOn(t, "tiny", gguf.Q8_0, 0, 1), sched.Options{MaxSeqs: 1})
	t.Cleanup(s.Close)
	return s
}

// TestTokensReachTheirReceiverAsMade: while the model's threads hold every
// P Go has (here one thread and one P), a request's receiver still takes
// each token before the next is made, as a server's handler must to
// stream it. The loop used to wake the receiver onto its own P and never
// yield it, so the tokens waited for the runtime to preempt the loop
// (every 10-20 ms) and came in bursts. On one P, Go's order alone decides
// this, not the machine's load; a token found behind another is counted,
// not timed, and a few are allowed (a preempted receiver).
func TestTokensReachTheirReceiverAsMade(t *testing.T) {
	s := schedulerOnOneP(t)
	const n = 200
	ev, err := s.Submit(context.Background(), sched.Request{Prompt: []int{1, 5}, MaxTokens: n, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	tokens, behind := 0, 0
	for e := range ev {
		if e.Done {
			break
		}
		tokens++
		if len(ev) > 1 { // another token made, and the Done or one more
			behind++
		}
	}
	if tokens != n || behind > n/10 {
		t.Errorf("%d of %d tokens found more made and waiting behind them: the receiver took them in bursts", behind, tokens)
	}
}

// TestEmbeddingsReachTheirReceiversAsMade: the same for embeddings made one
// after another: each receiver takes its vector before the next request's
// is made, not all at once when the loop runs out of work.
func TestEmbeddingsReachTheirReceiversAsMade(t *testing.T) {
	s := schedulerOnOneP(t)
	const n = 20
	var evs []<-chan sched.Event
	for i := range n {
		ev, err := s.Submit(context.Background(), sched.Request{Prompt: []int{1, 5 + i, 6, 7}, Pooling: sched.PoolMean})
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	behind := 0
	for i, ev := range evs {
		if e := <-ev; e.Embedding == nil {
			t.Fatalf("request %d: %+v, want an embedding", i, e)
		}
		if i+1 < n && len(evs[i+1]) > 0 {
			behind++
		}
	}
	if behind > n/10 {
		t.Errorf("%d of %d embeddings found the next one made already: the receivers took them in a burst", behind, n)
	}
}
