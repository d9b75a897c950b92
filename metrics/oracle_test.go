package metrics

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// Each computation against its definition computed the slow, obvious way
// over random data: a sort for percentiles, a scan for every window.

// TestDistributionsAgainstSortedSamples: mean, standard deviation (of a
// sample, n - 1), min and max exact; each percentile within HDR's 3
// significant digits of the sorted samples' value at its rank, for
// tpsbench's histograms; numpy's linear interpolation and GuideLLM's
// first-value-reaching-the-share for the exact ones.
func TestDistributionsAgainstSortedSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 40 {
		n := 1 + rng.IntN(500)
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = math.Round(math.Exp(rng.Float64()*12) + 1) // 2 ns to 160 us, over many buckets
		}
		if trial%5 == 0 {
			for i := range vs { // ties
				vs[i] = float64(1 + rng.IntN(4))
			}
		}
		hdr, numpy, rank := newLatency(), newExact(), newRank()
		for _, v := range vs {
			hdr.add(v)
			numpy.add(v)
			rank.add(v)
		}
		sorted := append([]float64(nil), vs...)
		sort.Float64s(sorted)
		mean := 0.0
		for _, v := range vs {
			mean += v
		}
		mean /= float64(n)
		ss := 0.0
		for _, v := range vs {
			ss += (v - mean) * (v - mean)
		}
		d := hdr.summary(1)
		close := func(name string, got, want, rel float64) {
			t.Helper()
			if !(math.Abs(got-want) <= rel*math.Abs(want)+1e-9) { // a NaN is never close
				t.Errorf("trial %d (n %d): %s %v, want %v", trial, n, name, got, want)
			}
		}
		close("mean", d.Mean, mean, 1e-9)
		if n > 1 {
			close("stddev", d.Stddev, math.Sqrt(ss/float64(n-1)), 1e-6)
		} else if d.Stddev != 0 {
			t.Errorf("one sample: stddev %v", d.Stddev)
		}
		close("min", d.Min, sorted[0], 0)
		close("max", d.Max, sorted[n-1], 0)
		if d.Count != int64(n) {
			t.Errorf("count %d, want %d", d.Count, n)
		}
		for q, got := range map[float64]float64{50: d.P50, 90: d.P90, 95: d.P95, 99: d.P99, 99.9: d.P999} {
			// HDR's value at a quantile: the sample at rank q n rounded
			// half up (1 to n), to its bucket's precision (3 digits:
			// within 0.1%)
			k := min(max(int(q/100*float64(n)+0.5), 1), n)
			close("p"+PercentileKey(q), got, sorted[k-1], 1e-3)
			lin := q / 100 * float64(n-1)
			lo := int(math.Floor(lin))
			hi := min(lo+1, n-1)
			close("numpy p"+PercentileKey(q), numpy.quantile(q), sorted[lo]+(sorted[hi]-sorted[lo])*(lin-float64(lo)), 1e-12)
			// GuideLLM: the first value whose share of samples at or
			// below it reaches q, the shares of the distinct values
			// summed in float64 as np.cumsum sums them
			want, cum := sorted[n-1], 0.0
			for i := 0; i < n; {
				j := i
				for j < n && sorted[j] == sorted[i] {
					j++
				}
				if cum += float64(j-i) / float64(n); cum >= q/100 {
					want = sorted[i]
					break
				}
				i = j
			}
			close("rank p"+PercentileKey(q), rank.quantile(q), want, 0)
		}
		nd := numpy.summary(1)
		close("numpy stddev", nd.Stddev, math.Sqrt(ss/float64(n)), 1e-6) // np.std: the population's
	}
}

// TestRollingAgainstAScan: each point of rolling TPS is the tokens that
// arrived in the window ending at it over the window's length, for every
// whole window from the step's start to its end; the peak is the highest.
func TestRollingAgainstAScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const t0 = int64(1_700_000_000e9)
	for trial := range 20 {
		s := NewAccumulator(Targets{})
		type arrival struct {
			at     int64
			tokens int
		}
		var all []arrival
		start, end := int64(math.MaxInt64), int64(0)
		for range 1 + rng.IntN(30) {
			sentMS := int64(rng.IntN(8000))
			r := &record.Record{V: 1, Stream: true, T0: t0, Sent: sentMS * ms, Scheduled: sentMS * ms, TokenSource: record.SourceUsage}
			at := int64(0)
			for range 1 + rng.IntN(40) {
				at += int64(rng.IntN(300)) * ms / 2
				k := 1 + rng.IntN(3)
				r.Chunks = append(r.Chunks, record.Chunk{At: at, Tokens: k})
				r.OutputTokens += k
				all = append(all, arrival{t0 + r.Sent + at, k})
			}
			r.UsageTokens = r.OutputTokens
			r.First, r.Last = r.Sent+r.Chunks[0].At, r.Sent+at
			r.Done = r.Last + int64(rng.IntN(3000))*ms // an answer may end well after its last token
			start, end = min(start, t0+r.Sent), max(end, t0+r.Done)
			s.Add(r)
		}
		sum := s.Summary()
		if sum.Start != start || sum.End != end {
			t.Fatalf("trial %d: window %d-%d, want %d-%d", trial, sum.Start, sum.End, start, end)
		}
		width := int64(binWidth)
		first := (start + width - 1) / width
		last := end / width
		n := int64(time.Second) / width
		var want []Point
		for i := first; i+n <= last; i++ {
			lo, hi := i*width, (i+n)*width
			tokens := 0
			for _, a := range all {
				if a.at >= lo && a.at < hi {
					tokens += a.tokens
				}
			}
			want = append(want, Point{T: hi, V: float64(tokens)})
		}
		got := sum.Charts.Rolling1s
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d points, want %d", trial, len(got), len(want))
		}
		top := 0.0
		for i := range want {
			if got[i].T != want[i].T || math.Abs(got[i].V-want[i].V) > 1e-9 {
				t.Fatalf("trial %d: point %d %+v, want %+v", trial, i, got[i], want[i])
			}
			top = math.Max(top, want[i].V)
		}
		if sum.DurationS >= 2 && sum.PeakTPS != top {
			t.Errorf("trial %d: peak %v, want %v", trial, sum.PeakTPS, top)
		}
	}
}

// TestWhileLateAgainstAScan: a batched arrival counts its extra chunks
// when some request was due at or before it and sent after it.
func TestWhileLateAgainstAScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 13))
	for trial := range 200 {
		var l lateStarts
		for range rng.IntN(12) {
			due := int64(rng.IntN(100))
			l.late = append(l.late, [2]int64{due, due + 1 + int64(rng.IntN(20))})
		}
		for range rng.IntN(12) {
			l.batched = append(l.batched, [2]int64{int64(rng.IntN(120)), int64(1 + rng.IntN(4))})
		}
		var want int64
		for _, b := range l.batched {
			for _, s := range l.late {
				if s[0] <= b[0] && b[0] < s[1] {
					want += b[1]
					break
				}
			}
		}
		if got := l.whileLate(); got != want {
			t.Fatalf("trial %d: %d while late, want %d (late %v, batched %v)", trial, got, want, l.late, l.batched)
		}
	}
}

// TestGuideLLMRatesConserveTokens: GuideLLM's rate over time gives each
// moment its tokens over the time to its neighbours' midpoints and weighs
// it by that time; the times add up to the window, so the weighted mean
// is the window's tokens over its length, whatever the moments and their
// merging. Its count is the tokens; every percentile is one of the rates.
func TestGuideLLMRatesConserveTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 34))
	for trial := range 200 {
		start := int64(1_700_000_000e9)
		end := start + int64(1+rng.IntN(5000))*int64(time.Millisecond)
		var events []guidellmEvent
		tokens := 0.0
		for range rng.IntN(40) {
			at := start + rng.Int64N(end-start+1)
			if rng.IntN(4) == 0 && len(events) > 0 {
				at = events[rng.IntN(len(events))].at + rng.Int64N(200000) // near another: merged
			}
			k := float64(1 + rng.IntN(5))
			events = append(events, guidellmEvent{at, k})
			if at >= start && at <= end {
				tokens += k
			}
		}
		d := guidellmRates(events, start, end)
		if tokens == 0 {
			if d.Mean != 0 {
				t.Errorf("trial %d: no tokens, mean %v", trial, d.Mean)
			}
			continue
		}
		want := tokens / (float64(end-start) / 1e9)
		if math.Abs(d.Mean-want) > 1e-9*want {
			t.Errorf("trial %d: mean %v, want %v tokens over %v s", trial, d.Mean, want, float64(end-start)/1e9)
		}
		if d.Count != int64(math.Round(tokens)) {
			t.Errorf("trial %d: count %d, want %v", trial, d.Count, tokens)
		}
		for _, p := range []float64{d.P50, d.P90, d.P95, d.P99, d.P999} {
			if p < d.Min || p > d.Max {
				t.Errorf("trial %d: a percentile %v outside [%v, %v]", trial, p, d.Min, d.Max)
			}
		}
		if !(d.P50 <= d.P90 && d.P90 <= d.P95 && d.P95 <= d.P99 && d.P99 <= d.P999) {
			t.Errorf("trial %d: percentiles out of order %+v", trial, d)
		}
	}
}
