package metrics

import "time"

// binWidth is the finest resolution of rolling TPS: windows slide by this
// much while a step's span fits maxBins of it.
const binWidth = 100 * time.Millisecond

// maxBins bounds the bins a step keeps (2 MB), whatever the span of its
// records: 7.3 hours at 100 ms. Past that the bins widen along
// widerBins, so that proxy records of months cost what those of hours
// do; a rolling window narrower than the bins widens with them, and the
// summary says so.
const maxBins = 1 << 18

// widerBins are the widths bins grow through, each a multiple of the one
// before it (so bins merge whole) and all dividing 60 s up to 60 s (so
// the 60 s window stays exact until spans of half a year). Past the last,
// widths double.
var widerBins = []time.Duration{
	100 * time.Millisecond, 200 * time.Millisecond, time.Second, 2 * time.Second, 10 * time.Second,
	20 * time.Second, time.Minute, 2 * time.Minute, 10 * time.Minute, 20 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// tokenBins counts output tokens by arrival time in fixed bins, growing in
// both directions, so records can be added in any order.
type tokenBins struct {
	width  int64 // ns; 0 until the first add, then binWidth or wider
	base   int64 // bin index of counts[0], in widths since the epoch
	counts []int64
}

// cover makes the bins span at (a request's send or end), without
// counting anything there: the rolling series runs over the whole window.
func (b *tokenBins) cover(at int64) { b.add(at, 0) }

func (b *tokenBins) add(at int64, tokens int) {
	if b.width == 0 {
		b.width = int64(binWidth)
	}
	i := floorDiv(at, b.width)
	if len(b.counts) == 0 {
		b.base, b.counts = i, make([]int64, 1, 64)
	}
	for max(i, b.base+int64(len(b.counts))-1)-min(i, b.base)+1 > maxBins {
		b.widen()
		i = floorDiv(at, b.width)
	}
	if i < b.base {
		// room in front for as many bins again, so that records in
		// falling order cost amortized O(1) a bin, not a copy each
		gap := b.base - i
		front := min(gap+int64(len(b.counts)), maxBins-int64(len(b.counts)))
		grown := make([]int64, front+int64(len(b.counts)), front+int64(cap(b.counts)))
		copy(grown[front:], b.counts)
		b.counts, b.base = grown, b.base-front
	}
	for j := i - b.base; int64(len(b.counts)) <= j; {
		b.counts = append(b.counts, 0)
	}
	b.counts[i-b.base] += int64(tokens)
}

// widen moves the bins to the next width, merging whole bins.
func (b *tokenBins) widen() {
	next := 2 * b.width
	for _, w := range widerBins {
		if int64(w) > b.width {
			next = int64(w)
			break
		}
	}
	k := next / b.width
	base := floorDiv(b.base, k)
	last := floorDiv(b.base+int64(len(b.counts))-1, k)
	merged := make([]int64, last-base+1, max(64, last-base+1))
	for j, c := range b.counts {
		merged[floorDiv(b.base+int64(j), k)-base] += c
	}
	b.width, b.base, b.counts = next, base, merged
}

// resolution is the bins' width.
func (b *tokenBins) resolution() time.Duration {
	if b.width == 0 {
		return binWidth
	}
	return time.Duration(b.width)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Point is a value at a time (Unix ns), or, in a CDF, a quantile V of a
// value X.
type Point struct {
	T int64   `json:"t,omitempty"`
	X float64 `json:"x,omitempty"`
	V float64 `json:"v"`
}

// rolling returns TPS over sliding windows of width w (or, when the bins
// are wider than w or do not divide it, of the next whole number of bins:
// the window it returns), one point per bin from start to end, each window
// lying inside [start, end]. When the span is shorter than the window it
// returns no points.
func (b *tokenBins) rolling(w time.Duration, start, end int64) ([]Point, time.Duration) {
	width := int64(b.resolution())
	n := (int64(w) + width - 1) / width
	window := time.Duration(n * width)
	first := floorDiv(start+width-1, width) // first whole bin
	last := floorDiv(end, width)            // bins before this one are whole
	if last-first < n {
		return nil, window
	}
	get := func(i int64) int64 {
		j := i - b.base
		if j < 0 || j >= int64(len(b.counts)) {
			return 0
		}
		return b.counts[j]
	}
	var sum int64
	for i := first; i < first+n; i++ {
		sum += get(i)
	}
	pts := make([]Point, 0, last-first-n+1)
	for i := first; ; i++ {
		pts = append(pts, Point{T: (i + n) * width, V: float64(sum) / window.Seconds()})
		if i+n >= last {
			break
		}
		sum += get(i+n) - get(i)
	}
	return pts, window
}
