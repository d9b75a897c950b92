package metrics

import "time"

// binWidth is the resolution of rolling TPS: windows slide by this much.
const binWidth = 100 * time.Millisecond

// tokenBins counts output tokens by arrival time in fixed bins, growing in
// both directions, so records can be added in any order.
type tokenBins struct {
	base   int64 // bin index of counts[0]
	counts []int64
}

func (b *tokenBins) add(at int64, tokens int) {
	i := floorDiv(at, int64(binWidth))
	if len(b.counts) == 0 {
		b.base = i
	}
	if i < b.base {
		grow := make([]int64, b.base-i, int64(len(b.counts))+b.base-i)
		b.counts = append(grow, b.counts...)
		b.base = i
	}
	j := i - b.base
	for int64(len(b.counts)) <= j {
		b.counts = append(b.counts, 0)
	}
	b.counts[j] += int64(tokens)
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

// rolling returns TPS over sliding windows of width w, one point per bin
// step from start to end, each window lying inside [start, end]. When the
// span is shorter than w it returns nothing.
func (b *tokenBins) rolling(w time.Duration, start, end int64) []Point {
	n := int(w / binWidth)
	first := floorDiv(start+int64(binWidth)-1, int64(binWidth)) // first whole bin
	last := floorDiv(end, int64(binWidth))                      // bins before this one are whole
	if last-first < int64(n) {
		return nil
	}
	get := func(i int64) int64 {
		j := i - b.base
		if j < 0 || j >= int64(len(b.counts)) {
			return 0
		}
		return b.counts[j]
	}
	var sum int64
	for i := first; i < first+int64(n); i++ {
		sum += get(i)
	}
	pts := make([]Point, 0, last-first-int64(n)+1)
	for i := first; ; i++ {
		pts = append(pts, Point{T: (i + int64(n)) * int64(binWidth), V: float64(sum) / w.Seconds()})
		if i+int64(n) >= last {
			break
		}
		sum += get(i+int64(n)) - get(i)
	}
	return pts
}
