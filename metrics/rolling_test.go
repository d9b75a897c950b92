package metrics

import (
	"math"
	"runtime"
	"testing"
	"time"
)

// TestRollingMemoryFollowsRecordsNotSpan: two records 30 days apart took
// 1.96 GB of 100 ms bins; bins now widen past maxBins, and the summary says
// which window its peak is over.
func TestRollingMemoryFollowsRecordsNotSpan(t *testing.T) {
	day := int64(24 * time.Hour / time.Millisecond)
	cases := []struct {
		name        string
		apart       int64 // ms
		peakWindowS float64
	}{
		{"one hour", 3600e3, 0},
		{"4 days", 4 * day, 2},
		{"7 days", 7 * day, 10},
		{"30 days", 30 * day, 10},
		{"10 years", 3650 * day, 0}, // past the ladder's 1 s rungs: checked for a window only
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			s := NewAccumulator(Targets{})
			s.Add(rec(0, []int64{100, 200}, []int{1, 1}))
			s.Add(rec(c.apart, []int64{100, 200}, []int{1, 1}))
			sum := s.Summary()
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
				t.Errorf("%d MB allocated for two records", got>>20)
			}
			if c.name != "10 years" && sum.PeakWindowS != c.peakWindowS {
				t.Errorf("peak window %v s, want %v", sum.PeakWindowS, c.peakWindowS)
			}
			if c.name == "10 years" && (sum.PeakWindowS < 3600 || sum.PeakWindow60S < 3600) {
				t.Errorf("peak windows %v s and %v s over 10 years", sum.PeakWindowS, sum.PeakWindow60S)
			}
			if c.name != "10 years" && sum.PeakWindow60S != 0 {
				t.Errorf("60 s window widened to %v s", sum.PeakWindow60S)
			}
			if sum.OutputTokens != 4 {
				t.Errorf("%d tokens, want 4", sum.OutputTokens)
			}
			total := 0.0
			for _, b := range s.bins.counts {
				total += float64(b)
			}
			if total != 4 {
				t.Errorf("bins hold %v tokens, want 4", total)
			}
		})
	}
}

// TestRollingWidenedIsExactOverWholeBins: after widening, a window of whole
// bins still counts every token once.
func TestRollingWidenedIsExactOverWholeBins(t *testing.T) {
	var b tokenBins
	sec := int64(time.Second)
	for i := int64(0); i < 10; i++ {
		b.add(i*sec+sec/2, 5) // 5 tokens every second
	}
	b.add(int64(maxBins)*int64(binWidth)*3, 0) // a far end widens the bins
	if b.resolution() <= binWidth {
		t.Fatalf("bins still %v wide", b.resolution())
	}
	pts, window := b.rolling(10*time.Second, 0, 10*sec)
	if window != 10*time.Second || len(pts) != 1 || pts[0].V != 5 {
		t.Fatalf("window %v, points %v: want one point of 5 tokens/s", window, pts)
	}
}

// TestBinsInFallingOrder: records added latest first (a merged or sorted
// file) cost amortized constant time a bin, not a copy of all bins each.
func TestBinsInFallingOrder(t *testing.T) {
	var b tokenBins
	allocs := testing.AllocsPerRun(1, func() {
		b = tokenBins{}
		for i := int64(maxBins - 1); i >= 0; i-- {
			b.add(i*int64(binWidth), 1)
		}
	})
	if allocs > 40 {
		t.Errorf("%v allocations for %d bins added in falling order", allocs, maxBins)
	}
	if len(b.counts) > maxBins || b.resolution() != binWidth {
		t.Errorf("%d bins of %v", len(b.counts), b.resolution())
	}
	for i := int64(0); i < maxBins; i++ { // each bin kept its token through the moves
		if c := b.counts[i-b.base]; c != 1 {
			t.Fatalf("bin %d holds %d tokens, want 1", i, c)
		}
	}
}

// TestAddNMatchesRepeatedAdd: a chunk of k tokens adds k ITL samples in one
// call; the distribution is the same as k calls.
func TestAddNMatchesRepeatedAdd(t *testing.T) {
	one, many := newLatency(), newLatency()
	for _, s := range []struct {
		v float64
		n int64
	}{{5e6, 3}, {20e6, 1}, {1e6, 7}, {40e6, 2}} {
		one.addN(s.v, s.n)
		for i := int64(0); i < s.n; i++ {
			many.add(s.v)
		}
	}
	a, b := one.summary(1), many.summary(1)
	if a.Count != b.Count || math.Abs(a.Mean-b.Mean) > 1e-6 || math.Abs(a.Stddev-b.Stddev) > 1e-3 || a.P50 != b.P50 || a.P99 != b.P99 || a.Min != b.Min || a.Max != b.Max {
		t.Errorf("addN %+v, repeated add %+v", a, b)
	}
	// a billion tokens in one chunk: one call
	big := newLatency()
	big.addN(1e6, 1e9)
	if big.summary(1).Count != 1e9 {
		t.Errorf("count %d", big.summary(1).Count)
	}
}

// TestWideningMergesFullBins: bins filled to their bound widen to the next
// width with every bin's tokens in the one it merges into: a token every
// 100 ms for maxBins bins, then one past them, is 2 tokens a 200 ms bin.
func TestWideningMergesFullBins(t *testing.T) {
	var b tokenBins
	w := int64(binWidth)
	for i := int64(0); i <= maxBins; i++ {
		b.add(i*w+w/2, 1)
	}
	if b.resolution() != 200*time.Millisecond {
		t.Fatalf("bins %v wide, want 200 ms", b.resolution())
	}
	for i := int64(0); i < maxBins/2; i++ {
		if c := b.counts[i-b.base]; c != 2 {
			t.Fatalf("200 ms bin %d holds %d tokens, want 2", i, c)
		}
	}
	if c := b.counts[maxBins/2-b.base]; c != 1 {
		t.Errorf("the last bin holds %d tokens, want 1", c)
	}
}
