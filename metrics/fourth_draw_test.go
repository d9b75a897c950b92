package metrics

import (
	"fmt"
	"math"
	"testing"
)

// TestDecodeTPSPercentiles: asked percentiles of decode TPS are tokens per
// second like its mean, not divided by another unit. Four tokens 100 ms
// apart after a first at 100 ms decode at 3 / 0.3 s = 10 tokens/s.
func TestDecodeTPSPercentiles(t *testing.T) {
	ss := NewSteps(Targets{}).WithPercentiles([]float64{50})
	ss.Add(away(5000, 100, 200, 300, 400))
	d := ss.Summaries()[0].DecodeTPS
	got, ok := d.Percentiles[PercentileKey(50)]
	if !ok || math.Abs(got-10) > 0.01 || math.Abs(got-d.P50) > 0.01 {
		t.Errorf("decode TPS p50 %v (%v), want 10 as its P50 %v", got, d.Percentiles, d.P50)
	}
}

// TestNoPercentilesOfNothing: a distribution with no samples reports no
// asked percentiles (a 0 would read as a measured 0 ms), and without asked
// percentiles none is reported at all.
func TestNoPercentilesOfNothing(t *testing.T) {
	ss := NewSteps(Targets{}).WithPercentiles([]float64{75})
	ss.Add(away(5000, 100)) // one token: no ITL, no reasoning
	sum := ss.Summaries()[0]
	if sum.ITL.Count != 0 || sum.ITL.Percentiles != nil || sum.TTST.Percentiles != nil {
		t.Errorf("ITL of %d samples has %v; TTST %v", sum.ITL.Count, sum.ITL.Percentiles, sum.TTST.Percentiles)
	}
	if sum.TTFT.Percentiles[PercentileKey(75)] == 0 {
		t.Errorf("TTFT percentiles %v", sum.TTFT.Percentiles)
	}
	plain := NewSteps(Targets{})
	plain.Add(away(5000, 100, 200))
	if p := plain.Summaries()[0].TTFT.Percentiles; p != nil {
		t.Errorf("percentiles nobody asked for: %v", p)
	}
}

// TestSpreadOfLargeValues: the interval's spread is computed from
// deviations, so values of 1e9 (nanoseconds, bytes) whose mean is not a
// float64 keep their spread: 1e9, 1e9+1, 1e9+1 deviate by 2/3 in squares,
// a standard deviation of sqrt(1/3), half-width t(2) 4.303 / 3.
func TestSpreadOfLargeValues(t *testing.T) {
	iv := interval([]float64{1e9, 1e9 + 1, 1e9 + 1})
	want := 4.303 / 3
	if math.Abs(iv.High-iv.Mean-want) > 1e-6 || math.Abs(iv.Mean-iv.Low-want) > 1e-6 {
		t.Errorf("interval %+v, want %v either side of the mean", iv, want)
	}
}

// TestRealTimeFactorUnderASecond: audio processed in under a second has
// its factor too: 2 s of audio in 0.5 s is 4.
func TestRealTimeFactorUnderASecond(t *testing.T) {
	s := NewAccumulator(Targets{})
	r := away(5000, 100, 200)
	r.AudioSeconds, r.Done = 2, r.Sent+500*ms
	s.Add(r)
	if sum := s.Summary(); sum.AudioSeconds != 2 || sum.RealTimeFactor != 4 {
		t.Errorf("audio %v s, real-time factor %v; want 2 and 4", sum.AudioSeconds, sum.RealTimeFactor)
	}
}

// TestSixtyFourPartsApart: as documented, a step keeps its first 64
// models apart and the rest together: 66 models are 64 parts and one of
// two requests.
func TestSixtyFourPartsApart(t *testing.T) {
	m := NewAccumulator(Targets{})
	for i := range 66 {
		r := away(5000+int64(i), 10)
		r.Model = fmt.Sprintf("model-%03d", i)
		m.Add(r)
	}
	parts := m.Summary().Models
	apart, others := 0, 0
	for _, p := range parts {
		if p.Name == otherPartsKey {
			others += p.Completed
		} else {
			apart++
		}
	}
	if apart != 64 || others != 2 {
		t.Errorf("%d models apart, %d requests of others; want 64 and 2", apart, others)
	}
}

// TestNoSamplesAddNothing: adding a value no times leaves a histogram
// as it was; its extremes and mean are the samples' alone.
func TestNoSamplesAddNothing(t *testing.T) {
	h := newLatency()
	h.addN(5, 0)
	h.add(3)
	if h.n != 1 || h.min != 3 || h.max != 3 || h.mean != 3 {
		t.Errorf("n %d, min %v, max %v, mean %v; want one sample of 3", h.n, h.min, h.max, h.mean)
	}
}

// TestLateStartsBounded: a step keeps at most maxLateMarks late starts,
// whatever the number of late requests.
func TestLateStartsBounded(t *testing.T) {
	var l lateStarts
	r := away(5000, 100)
	r.Scheduled = r.Sent - 2*lateStartNS
	for range maxLateMarks + 3 {
		l.started(r)
	}
	if len(l.late) != maxLateMarks {
		t.Errorf("%d late starts kept, want %d", len(l.late), maxLateMarks)
	}
}
