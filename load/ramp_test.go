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
		p := Profile{Arrivals: Constant, Requests: 4, RampStrategy: tc.strategy, RampStartRate: 100, RampEndRate: 1000}
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
// number of requests, and takes no rate beside it.
func TestRampValidate(t *testing.T) {
	for _, p := range []Profile{
		{Requests: 4, RampStrategy: "sideways", RampStartRate: 1, RampEndRate: 2},
		{Requests: 4, RampStrategy: RampLinear, RampStartRate: 0, RampEndRate: 2},
		{Requests: 4, RampStrategy: RampLinear, RampStartRate: 1, RampEndRate: 2, Rate: 3},
		{Duration: time.Second, RampStrategy: RampLinear, RampStartRate: 1, RampEndRate: 2},
		{Concurrency: 1, Requests: 4, RampStartRate: 1},
	} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
