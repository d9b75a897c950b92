package tpsbench

// RatesBetween gives n request rates evenly spaced strictly between low
// and high, as GuideLLM's sweep places its constant-rate steps between the
// rate a server sustains one request at a time (low) and the rate it
// reaches flooded (high). It is nil when n < 1 or high does not exceed low.
func RatesBetween(low, high float64, n int) []float64 {
	if n < 1 || !(high > low) || low < 0 {
		return nil
	}
	out := make([]float64, n)
	for k := range out {
		out[k] = low + (high-low)*float64(k+1)/float64(n+1)
	}
	return out
}
