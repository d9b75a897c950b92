//go:build !amd64 || purego

package llama

// expShift sets p[i] = exp32((logits[i] - mx) * inv) and returns their
// sum; every logit must be at most mx, and inv positive.
func expShift(p, logits []float32, mx, inv float32) float64 {
	var sum float64
	for i, l := range logits {
		e := exp32((l - mx) * inv)
		p[i] = e
		sum += float64(e)
	}
	return sum
}
