package metrics

// ParetoFront marks the points no other beats on both figures: point i is
// on the front unless some j has xs[j] >= xs[i] and ys[j] >= ys[i], one of
// them strictly (more of both is better: system TPS against per-request
// TPS, the throughput a server gives against what a user feels).
func ParetoFront(xs, ys []float64) []bool {
	front := make([]bool, len(xs))
	for i := range xs {
		front[i] = true
		for j := range xs {
			if j != i && xs[j] >= xs[i] && ys[j] >= ys[i] && (xs[j] > xs[i] || ys[j] > ys[i]) {
				front[i] = false
				break
			}
		}
	}
	return front
}
