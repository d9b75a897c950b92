package load

import (
	"context"
	"math"
	"sort"
	"testing"
	"time"
)

// TestRampRates: vLLM's ramp, worked by hand: request i of n at rate
// start + (end - start) * i/(n - 1), or start * (end/start)^(i/(n - 1));
// with constant arrivals the gap before request i is 1 / its rate, so the
// schedule is fixed in advance and the offsets hold exactly.
func TestRampRates(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		want     []float64
	}{
		{RampLinear, []float64{100, 400, 700, 1000}},
		{RampExponential, []float64{100, 100 * math.Pow(10, 1.0/3), 100 * math.Pow(10, 2.0/3), 1000}},
	} {
		log := &turnLog{jobs: map[int]Job{}, ends: map[int]time.Time{}}
		p := Profile{Shape: IndexRamp{From: 100, To: 1000, Strategy: tc.strategy, Requests: 4}, Requests: 4}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		collect(Run(context.Background(), p, log.do(0)))
		seqs := make([]int, 0, len(log.jobs))
		for s := range log.jobs {
			seqs = append(seqs, s)
		}
		sort.Ints(seqs)
		for i, s := range seqs {
			j := log.jobs[s]
			if math.Abs(j.Rate-tc.want[i]) > 1e-9 {
				t.Errorf("%s: request %d at %v/s, want %v", tc.strategy, i, j.Rate, tc.want[i])
			}
			if i > 0 {
				gap := j.Scheduled.Sub(log.jobs[seqs[i-1]].Scheduled).Seconds()
				if math.Abs(gap-1/tc.want[i]) > 1e-6 {
					t.Errorf("%s: gap before request %d %v s, want %v", tc.strategy, i, gap, 1/tc.want[i])
				}
			}
		}
	}
}

// TestRampValidate: a ramp needs its strategy, two rates above 0 and a
// number of requests, and takes no sessions; it warms up one request at
// a time, or as many as the cap lets.
func TestRampValidate(t *testing.T) {
	good := IndexRamp{From: 1, To: 2, Strategy: RampLinear, Requests: 4}
	for name, p := range map[string]Profile{
		"a strategy unknown": {Shape: IndexRamp{From: 1, To: 2, Strategy: "sideways", Requests: 4}, Requests: 4},
		"a rate of 0":        {Shape: IndexRamp{From: 0, To: 2, Strategy: RampLinear, Requests: 4}, Requests: 4},
		"an infinite rate":   {Shape: IndexRamp{From: 1, To: math.Inf(1), Strategy: RampLinear, Requests: 4}, Requests: 4},
		"no length":          {Shape: IndexRamp{From: 1, To: 2, Strategy: RampLinear}, Duration: time.Second},
		"sessions":           {Shape: good, Requests: 4, Sessions: Sessions{Turns: 2}},
	} {
		if p.Validate() == nil {
			t.Errorf("%s: %+v accepted", name, p)
		}
	}
	if w := warmupOf(Profile{Shape: good, MaxInFlight: 3}); w != (Users{Count: 3}) {
		t.Errorf("a capped ramp warms up as %v, want 3 users", w)
	}
	if w := warmupOf(Profile{Shape: good}); w != (Users{Count: 1}) {
		t.Errorf("a ramp warms up as %v, want 1 user", w)
	}
}
