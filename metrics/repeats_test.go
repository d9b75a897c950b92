package metrics

import (
	"math"
	"testing"
)

// TestAcrossRuns: three runs of system TPS 100, 110 and 120, worked by
// hand: mean 110, sample deviation 10, half-width t(2) 4.303 * 10 / sqrt 3
// = 24.84; the one-run interval is its value; intervals that overlap and
// ones that do not.
func TestAcrossRuns(t *testing.T) {
	runs := []Summary{{SystemTPS: 100}, {SystemTPS: 110}, {SystemTPS: 120}}
	for i := range runs {
		runs[i].Requests.Completed = 1
	}
	r := AcrossRuns("c=4", runs)
	iv := r.Figures["system_tps"]
	half := 4.303 * 10 / math.Sqrt(3)
	if r.Runs != 3 || math.Abs(iv.Mean-110) > 1e-9 || math.Abs(iv.Low-(110-half)) > 1e-9 || math.Abs(iv.High-(110+half)) > 1e-9 || len(iv.Values) != 3 {
		t.Errorf("system TPS %+v", iv)
	}
	if _, ok := r.Figures["ttft_p50_ms"]; ok {
		t.Error("a figure no run had is given")
	}
	one := AcrossRuns("c=4", runs[:1]).Figures["system_tps"]
	if one.Low != 100 || one.High != 100 {
		t.Errorf("one run: %+v", one)
	}
	if !Overlap(Interval{Low: 1, High: 3}, Interval{Low: 2, High: 4}) || Overlap(Interval{Low: 1, High: 2}, Interval{Low: 2.5, High: 4}) {
		t.Error("overlap wrong")
	}
}
