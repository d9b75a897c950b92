package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// TestSessionStrategiesShareOutputs runs the three strategies on one
// session: plain steps, a sweep between their rates and a search. Every
// step of each reaches the base plan's records and observer, and step
// indices run on across the strategies (records of one session never
// share an index).
func TestSessionStrategiesShareOutputs(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true})
	defer srv.Close()
	clock := record.NewClock()
	var clients []*client.HTTP
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
	}()
	step := func(label string, prof load.Profile) (tpsbench.Step, error) {
		cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: max(prof.Limit(), 1), Clock: clock})
		if err != nil {
			return tpsbench.Step{}, err
		}
		clients = append(clients, cl)
		return tpsbench.Step{Label: label, Model: "m", Client: cl, Profile: prof, Workload: workload.Fixed{Prompt: "p", MaxTokens: 4}}, nil
	}
	var records bytes.Buffer
	var began []int
	observedIndex := map[string]int{}
	base := tpsbench.Plan{Clock: clock, Records: record.NewWriter(&records),
		Targets:  metrics.Targets{List: []metrics.Target{{Name: metrics.TargetRequestTPS, Want: 1}}},
		Observer: tpsbench.ObserverFuncs{OnStep: func(i int, s *tpsbench.Step) { began = append(began, i); observedIndex[s.Label] = i }}}
	sess := tpsbench.NewSession(base)

	sync, err := step("sync", load.Profile{Shape: load.Users{Count: 1}, Requests: 3})
	if err != nil {
		t.Fatal(err)
	}
	flood, err := step("flood", load.Profile{Shape: load.Users{Count: 4}, Requests: 8})
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := sess.Run(context.Background(), []tpsbench.Step{sync, flood})
	if err != nil {
		t.Fatal(err)
	}
	swept, _, err := sess.SweepBetween(context.Background(), anchors, 2, func(rate float64) (tpsbench.Step, error) {
		return step(fmt.Sprintf("r=%g", rate), load.Profile{Shape: load.Rate{PerSecond: rate}, Requests: 2})
	})
	if err != nil {
		t.Fatal(err)
	}
	search, err := sess.FindMax(context.Background(), 1, 2, func(c int) (tpsbench.Step, error) {
		return step(fmt.Sprintf("c=%d", c), load.Profile{Shape: load.Users{Count: c}, Requests: 2})
	})
	if err != nil {
		t.Fatal(err)
	}

	steps := len(swept.Steps) + len(search.Steps)
	if len(swept.Steps) < 2 || len(search.Steps) == 0 {
		t.Fatalf("%d steps swept, %d searched", len(swept.Steps), len(search.Steps))
	}
	for i, idx := range began {
		if idx != i {
			t.Fatalf("observer saw step indices %v: want 0, 1, 2, ... across strategies", began)
		}
	}
	if len(began) != steps {
		t.Fatalf("observer saw %d steps begin, the strategies measured %d", len(began), steps)
	}
	// every record is in the file, under its step's index
	byIndex := map[int]int{}
	counted := 0
	rd := record.NewReader(&records, "records")
	for {
		var r record.Record
		if err := rd.Next(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if want, ok := observedIndex[r.Step]; !ok || r.StepIndex != want {
			t.Errorf("record of step %q has index %d, its step began as %d", r.Step, r.StepIndex, want)
		}
		byIndex[r.StepIndex]++
		counted++
	}
	want := 0
	for _, s := range append(swept.Steps, search.Steps...) {
		want += s.Requests.Completed
	}
	if counted != want || len(byIndex) != steps {
		t.Errorf("records: %d in %d steps, want %d in %d", counted, len(byIndex), want, steps)
	}
}

// lifecycleLog is an observer that notes its lifecycle's calls; fail
// makes its Start fail.
type lifecycleLog struct {
	tpsbench.ObserverFuncs
	name string
	log  *[]string
	fail bool
}

func (l *lifecycleLog) Start() error {
	*l.log = append(*l.log, "start "+l.name)
	if l.fail {
		return errors.New("no port")
	}
	return nil
}
func (l *lifecycleLog) Flush() { *l.log = append(*l.log, "flush "+l.name) }
func (l *lifecycleLog) Stop()  { *l.log = append(*l.log, "stop "+l.name) }

// TestSessionDrivesLifecycles: a session starts its observers (nested in
// Observers too) in order, flushes them once when measuring ends, and
// stops them the last first; when one fails to start, those started are
// stopped and the others never start.
func TestSessionDrivesLifecycles(t *testing.T) {
	var log []string
	a, b := &lifecycleLog{name: "a", log: &log}, &lifecycleLog{name: "b", log: &log}
	plain := tpsbench.ObserverFuncs{} // no lifecycle: left alone
	sess := tpsbench.NewSession(tpsbench.Plan{Observer: tpsbench.Observers{a, tpsbench.Observers{plain, b}}})
	if err := sess.Start(); err != nil {
		t.Fatal(err)
	}
	sess.Finish()
	sess.Close()
	sess.Close()
	want := "start a, start b, flush a, flush b, stop b, stop a"
	if got := strings.Join(log, ", "); got != want {
		t.Errorf("lifecycle %q, want %q", got, want)
	}

	log = nil
	c := &lifecycleLog{name: "c", log: &log, fail: true}
	d := &lifecycleLog{name: "d", log: &log}
	sess = tpsbench.NewSession(tpsbench.Plan{Observer: tpsbench.Observers{a, c, d}})
	if err := sess.Start(); err == nil || !strings.Contains(err.Error(), "no port") {
		t.Fatalf("start error %v", err)
	}
	want = "start a, start c, flush a, stop a"
	if got := strings.Join(log, ", "); got != want {
		t.Errorf("a failed start: lifecycle %q, want %q", got, want)
	}
}

// TestMaxErrorsStopsAStep: a step stops starting requests once MaxErrors
// of them failed (one slot: exactly that many were sent, by the server's
// own count of what it received), and the run goes on to its next step.
func TestMaxErrorsStopsAStep(t *testing.T) {
	var received atomic.Int32
	srv := scripted.NewFunc(func(seq int) scripted.Script {
		received.Add(1)
		if seq < 5 {
			return scripted.Script{Status: 500}
		}
		return scripted.Script{Usage: true, Tokens: 2}
	})
	defer srv.Close()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	step := func(label string, n int) tpsbench.Step {
		return tpsbench.Step{Label: label, Model: "m", Client: cl, Profile: load.Profile{Shape: load.Users{Count: 1}, Requests: n}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 2}}
	}
	res, err := tpsbench.Run(context.Background(), tpsbench.Plan{MaxErrors: 3, Steps: []tpsbench.Step{step("failing", 40), step("after", 6)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 2 {
		t.Fatalf("%d steps", len(res.Steps))
	}
	first, second := res.Steps[0], res.Steps[1]
	sent := first.Requests.Completed + first.Requests.Failed
	if want := (metrics.EarlyStop{Failed: 3, Limit: 3}); first.Stopped == nil || *first.Stopped != want || first.Requests.Failed != 3 || sent != 3 {
		t.Errorf("the failing step: stopped %+v, %d sent, %d failed", first.Stopped, sent, first.Requests.Failed)
	}
	if second.Stopped != nil || second.Requests.Completed < 3 || int(received.Load()) != sent+second.Requests.Completed+second.Requests.Failed {
		t.Errorf("the step after: stopped %+v, %d completed; the server received %d requests in all", second.Stopped, second.Requests.Completed, received.Load())
	}
}

// TestMaxErrorRateStopsAStep: a step stops once more than MaxErrorRate of
// its last ErrorWindow finished requests failed, counted by what the
// server received; a share exactly at the rate goes on to the end.
func TestMaxErrorRateStopsAStep(t *testing.T) {
	cases := []struct {
		name     string
		fails    func(seq int) bool
		sent     int
		stopped  *metrics.EarlyStop
		requests int
	}{
		// 10 answered, then every one fails: the 6th failure puts 6 of
		// the last 10 over half, so 16 were sent
		{"goes bad", func(seq int) bool { return seq >= 10 }, 16, &metrics.EarlyStop{Failed: 6, Of: 10, Rate: 0.5}, 60},
		// every other one fails: 5 of 10, never over half
		{"at the rate", func(seq int) bool { return seq%2 == 1 }, 40, nil, 40},
		// failures before the window fills do not stop it early
		{"window not full", func(seq int) bool { return seq < 9 }, 9, nil, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var received atomic.Int32
			srv := scripted.NewFunc(func(seq int) scripted.Script {
				received.Add(1)
				if c.fails(seq) {
					return scripted.Script{Status: 500}
				}
				return scripted.Script{Usage: true, Tokens: 2}
			})
			defer srv.Close()
			cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			step := tpsbench.Step{Label: "s", Model: "m", Client: cl, Profile: load.Profile{Shape: load.Users{Count: 1}, Requests: c.requests}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 2}}
			res, err := tpsbench.Run(context.Background(), tpsbench.Plan{MaxErrorRate: 0.5, ErrorWindow: 10, Steps: []tpsbench.Step{step}})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Steps[0]
			if got := int(received.Load()); got != c.sent || s.Requests.Completed+s.Requests.Failed != c.sent {
				t.Errorf("the server received %d, the step measured %d; want %d", got, s.Requests.Completed+s.Requests.Failed, c.sent)
			}
			switch {
			case c.stopped == nil && s.Stopped != nil:
				t.Errorf("stopped %+v, want no stop", *s.Stopped)
			case c.stopped != nil && (s.Stopped == nil || *s.Stopped != *c.stopped):
				t.Errorf("stopped %+v, want %+v", s.Stopped, *c.stopped)
			}
		})
	}
}
