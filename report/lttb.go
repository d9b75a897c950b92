package report

// lttb downsamples a series to at most n points by largest-triangle-three-
// buckets, which keeps the peaks and dips a reader looks for (a one-hour
// run at 100 ms resolution has 36,000 points; a chart needs a thousand).
func lttb(xs, ys []float64, n int) ([]float64, []float64) {
	if len(xs) <= n || n < 3 {
		return xs, ys
	}
	ox, oy := make([]float64, 0, n), make([]float64, 0, n)
	ox, oy = append(ox, xs[0]), append(oy, ys[0])
	every := float64(len(xs)-2) / float64(n-2)
	a := 0
	for i := 0; i < n-2; i++ {
		// average of the next bucket
		s, e := int(float64(i+1)*every)+1, int(float64(i+2)*every)+1
		e = min(e, len(xs))
		var avx, avy float64
		for j := s; j < e; j++ {
			avx += xs[j]
			avy += ys[j]
		}
		if e > s {
			avx /= float64(e - s)
			avy /= float64(e - s)
		}
		// the point of this bucket making the largest triangle
		bs, be := int(float64(i)*every)+1, int(float64(i+1)*every)+1
		best, bestArea := bs, -1.0
		for j := bs; j < be; j++ {
			area := (xs[a]-avx)*(ys[j]-ys[a]) - (xs[a]-xs[j])*(avy-ys[a])
			if area < 0 {
				area = -area
			}
			if area > bestArea {
				best, bestArea = j, area
			}
		}
		ox, oy = append(ox, xs[best]), append(oy, ys[best])
		a = best
	}
	return append(ox, xs[len(xs)-1]), append(oy, ys[len(ys)-1])
}
