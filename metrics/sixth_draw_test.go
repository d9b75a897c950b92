package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// TestBinsWidenFallingPastTheBound: a record before the others (a file
// read latest first) widens the bins when the span reaches past maxBins
// of them, as one after them does: arrivals maxBins - 1 bins apart fit in
// 100 ms bins, maxBins apart do not. Each token stays in its arrival's bin
// (the room kept in front for more such records is empty).
func TestBinsWidenFallingPastTheBound(t *testing.T) {
	for _, apart := range []int64{maxBins - 1, maxBins} {
		var b tokenBins
		far := apart * int64(binWidth)
		b.add(far, 1)
		b.add(0, 1)
		if widened := b.width > int64(binWidth); widened != (apart == maxBins) || int64(len(b.counts)) > maxBins {
			t.Errorf("%d bins apart: %d bins of %v", apart, len(b.counts), b.resolution())
			continue
		}
		var total int64
		for _, c := range b.counts {
			total += c
		}
		first, last := floorDiv(0, b.width)-b.base, floorDiv(far, b.width)-b.base
		if total != 2 || first < 0 || last != int64(len(b.counts)-1) || b.counts[first] != 1 || b.counts[last] != 1 {
			t.Errorf("%d bins apart: %d tokens in %d bins from %d; want one in bin %d and one in the last, %d", apart, total, len(b.counts), b.base, first, last)
		}
	}
}

// TestGuideLLMDropsZeroWeightsAmongOthers: a value of no weight is not
// one of the distribution's, beside values that have one: 1 and 9 of
// weight 0 around 5 of weight 2 leave 5 alone as min, max and median.
func TestGuideLLMDropsZeroWeightsAmongOthers(t *testing.T) {
	d := weightedDist([]weighted{{1, 0}, {5, 2}, {9, 0}}, 2)
	if d.Min != 5 || d.Max != 5 || d.P50 != 5 || d.Mean != 5 || d.Stddev != 0 {
		t.Errorf("%+v, want 5 alone", d)
	}
}

// TestCumulativeOfOneToken: one token counted 2 s before now is 0.5
// tokens a second since it came.
func TestCumulativeOfOneToken(t *testing.T) {
	var b SecondBins
	t0 := time.Unix(1_700_000_000, 0)
	b.Add(t0.UnixNano(), 1)
	near(t, "cumulative", b.Cumulative(t0.Add(2*time.Second)), 0.5)
}

// TestReplayCountsAOneTokenPrompt: a record whose server counted a
// prompt of one token is compared with its trace entry's like any other.
func TestReplayCountsAOneTokenPrompt(t *testing.T) {
	s := NewAccumulator(Targets{})
	r := away(5000, 100)
	r.PromptTokens = 1
	r.Trace = &record.TraceRef{InputTokens: 1, OutputTokens: 1}
	s.Add(r)
	rp := s.Summary().Replay
	if rp == nil || rp.InputCounted != 1 || rp.InputExact != 1 {
		t.Errorf("replay %+v, want one prompt counted, exactly", rp)
	}
}

// TestHTTPPhasePercentilesInMS: asked percentiles of an HTTP phase are
// in ms like its median: one request that waited 100 ms has a p50 of
// about 100, as its P50.
func TestHTTPPhasePercentilesInMS(t *testing.T) {
	ss := NewSteps(Targets{}).WithPercentiles([]float64{50})
	r := away(5000, 100)
	r.HTTP = &record.HTTPPhases{Waiting: 100 * ms}
	ss.Add(r)
	p := ss.Summaries()[0].HTTP
	if p == nil {
		t.Fatal("no HTTP phases")
	}
	p.Each(func(name string, d *Dist) {
		if name != "waiting" {
			return
		}
		got, ok := d.Percentiles[PercentileKey(50)]
		if !ok || math.Abs(got-d.P50) > 1e-9 || math.Abs(got-100) > 2 {
			t.Errorf("waiting p50 %v (%v), want about 100 ms as its P50 %v", got, d.Percentiles, d.P50)
		}
	})
}

// TestGenAIPerfTokenizerOfOneToken: GenAI-Perf's n is its tokenizer's
// count, usage or not: a tokenizer's one token over two responses has no
// ITL, whatever usage says.
func TestGenAIPerfTokenizerOfOneToken(t *testing.T) {
	r := nsRecord([]int64{1e6, 2e6}, []int{2, 1})
	r.TokenizerTokens = 1
	if s := genaiPerfStep(r); s.ITL.Count != 0 || s.TTFT.Count != 1 {
		t.Errorf("ITL %+v, TTFT count %d", s.ITL, s.TTFT.Count)
	}
}

// TestSteadyRateNoRamp: requests all started at one rate are no ramp.
func TestSteadyRateNoRamp(t *testing.T) {
	s := NewAccumulator(Targets{})
	for i := range 3 {
		r := away(5000+int64(i)*200, 100)
		r.Rate = 5
		s.Add(r)
	}
	if sum := s.Summary(); sum.RampFrom != 0 || sum.RampTo != 0 {
		t.Errorf("ramp %v to %v at a steady 5 a second", sum.RampFrom, sum.RampTo)
	}
}
