package e2e_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// TestFirstWaveDueTogether: a closed loop's first requests, one a user,
// are due at one instant, after the last of them was handed to the
// client (the observer's OnSend, before its body is built), and the
// server (its own log) read none of them before it: their send lag is
// their sends', not the time the client took to build them.
func TestFirstWaveDueTogether(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true})
	defer srv.Close()
	clock := record.NewClock()
	const users = 16
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: users, Clock: clock, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*record.Record
	var mu sync.Mutex
	var lastHanded int64 // of the first wave
	plan := tpsbench.Plan{Clock: clock, Steps: []tpsbench.Step{{Label: "s", Model: "m", Client: cl,
		Profile: load.Profile{Shape: load.Users{Count: users}, Requests: 2 * users}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 3}}},
		Observer: tpsbench.ObserverFuncs{
			OnSend: func(r *record.Record) {
				if r.Seq < users {
					mu.Lock()
					lastHanded = max(lastHanded, clock.Now())
					mu.Unlock()
				}
			},
			OnDone: func(r *record.Record) { recs = append(recs, r) }}}
	if _, err := tpsbench.Run(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2*users {
		t.Fatalf("%d records, want %d", len(recs), 2*users)
	}
	var due int64
	for _, r := range recs {
		if r.Seq < users && (due == 0 || r.Scheduled < due) {
			due = r.Scheduled
		}
	}
	if due < lastHanded {
		t.Errorf("the first wave was due %v before its last request was handed to the client", time.Duration(lastHanded-due))
	}
	for _, r := range recs {
		if !r.OK() {
			t.Fatalf("record %d: %+v", r.Seq, r.Error)
		}
		log, ok := srv.Log(r.ResponseID)
		if !ok {
			t.Fatalf("record %d: no server log", r.Seq)
		}
		switch {
		case r.Seq < users && r.Scheduled != due:
			t.Errorf("first-wave request %d due %v after the wave", r.Seq, time.Duration(r.Scheduled-due))
		case r.Seq >= users && r.Scheduled < due:
			t.Errorf("request %d due %v before the first wave", r.Seq, time.Duration(due-r.Scheduled))
		case r.Sent < r.Scheduled:
			t.Errorf("request %d sent %v before it was due", r.Seq, time.Duration(r.Scheduled-r.Sent))
		case log.Received.Before(clock.Time(r.Scheduled)):
			t.Errorf("request %d: the server read it %v before it was due", r.Seq, clock.Time(r.Scheduled).Sub(log.Received))
		}
	}
}
