package llama

import "math"

// exp32 is e^x in float32 to about 2e-7 relative error, several times
// faster than math.Exp: sampling takes a softmax over the whole vocabulary
// for every token of every sequence, where math.Exp alone cost 0.5 ms a
// token at 32,000 pieces.
func exp32(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		ln2hi = 0.693359375
		ln2lo = -2.12194440e-4
	)
	if x > 88.3762626647949 {
		return float32(math.Inf(1))
	}
	if x < -87.3365447504019 {
		return 0
	}
	// x = n ln2 + r, |r| <= ln2/2; e^x = 2^n e^r
	n := float32(math.Floor(float64(x*log2e + 0.5)))
	r := x - n*ln2hi - n*ln2lo
	// minimax polynomial for e^r on [-ln2/2, ln2/2] (Cephes expf)
	p := float32(1.9875691500e-4)
	p = p*r + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 5.0000001201e-1
	e := p*r*r + r + 1
	return math.Float32frombits(math.Float32bits(e) + uint32(int32(n))<<23)
}
