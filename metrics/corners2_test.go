package metrics

import (
	"encoding/json"
	"math"
	"testing"
)

// TestOneSampleAndSmallValues: a distribution of one sample has a
// standard deviation of 0 (not NaN) and is written as an object, one of
// none as null; a rate of half a token a second is kept, not taken for a
// negative one.
func TestOneSampleAndSmallValues(t *testing.T) {
	h := newLatency()
	h.add(5e6)
	d := h.summary(1e6)
	if d.Stddev != 0 || d.Count != 1 || d.Mean != 5 {
		t.Errorf("one sample: %+v", d)
	}
	if b, _ := json.Marshal(d); string(b) == "null" {
		t.Error("a distribution of one sample written as null")
	}
	if b, _ := json.Marshal(Dist{}); string(b) != "null" {
		t.Errorf("an empty distribution written as %s", b)
	}
	r := newRate()
	r.add(0.5)
	if s := r.summary(1); math.Abs(s.Mean-0.5) > 1e-9 || math.Abs(s.P50-0.5) > 1e-3 {
		t.Errorf("a rate of 0.5: %+v", s)
	}
}

// TestStepOfOneModelAndItsPeak: a step of one model is named by it; the
// rolling peak of a request sent at 5 s after a distant t0, its 20 tokens
// 100 ms apart, is 10 tokens a second; a percentile asked for of a step
// of one request is its value in ms.
func TestStepOfOneModelAndItsPeak(t *testing.T) {
	at := make([]int64, 20)
	for i := range at {
		at[i] = int64(100 * (i + 1))
	}
	r := away(5000, at...)
	r.Model = "m"
	ss := NewSteps(Targets{}).WithPercentiles([]float64{50, 99.9})
	ss.Add(r)
	sum := ss.Summaries()[0]
	if sum.Model != "m" || sum.Models != nil {
		t.Errorf("model %q, models %+v", sum.Model, sum.Models)
	}
	near(t, "peak TPS", sum.PeakTPS, 10)
	if got, ok := sum.TTFT.Percentiles[PercentileKey(99.9)]; !ok || math.Abs(got-100) > 0.1 {
		t.Errorf("TTFT p99.9 of one request of 100 ms: %v (%v)", got, sum.TTFT.Percentiles)
	}
}

// TestRepeatsOfTwoAndOfNothing: two runs of 100 and 120 give mean 110
// and the half-width t(1) 12.706 * 14.142 / sqrt 2 = 127.06; a figure no
// run measured (TTFT, TPOT, ITL, E2E, request and decode TPS of runs that
// completed nothing streamed) is left out.
func TestRepeatsOfTwoAndOfNothing(t *testing.T) {
	runs := []Summary{{SystemTPS: 100}, {SystemTPS: 120}}
	for i := range runs {
		runs[i].Requests.Completed = 1
	}
	r := AcrossRuns("s", runs)
	iv := r.Figures["system_tps"]
	half := 12.706 * math.Sqrt(200) / math.Sqrt(2)
	if math.Abs(iv.Mean-110) > 1e-9 || math.Abs(iv.Low-(110-half)) > 1e-9 || math.Abs(iv.High-(110+half)) > 1e-9 {
		t.Errorf("two runs: %+v, want 110 ± %.2f", iv, half)
	}
	for _, name := range RepeatFigureNames() {
		if _, ok := r.Figures[name]; ok != (name == "system_tps" || name == "error_rate") {
			t.Errorf("figure %s given %v", name, ok)
		}
	}
}
