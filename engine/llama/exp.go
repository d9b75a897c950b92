package llama

import "math"

// exp32 is e^x in float32 to about 2e-7 relative error, several times
// faster than math.Exp: sampling takes a softmax over the whole vocabulary
// for every token of every sequence, where math.Exp alone cost 0.5 ms a
// token at 32,000 pieces.
func exp32(x float32) float32 {
	if x > expHigh {
		return float32(math.Inf(1))
	}
	if x < expLow {
		return 0
	}
	// x = n ln2 + r, |r| <= ln2/2; e^x = 2^n e^r
	n := float32(math.Floor(float64(x*expLog2e + 0.5)))
	r := x - n*expLn2hi - n*expLn2lo
	// minimax polynomial for e^r on [-ln2/2, ln2/2] (Cephes expf)
	p := float32(expP0)
	p = p*r + expP1
	p = p*r + expP2
	p = p*r + expP3
	p = p*r + expP4
	p = p*r + expP5
	e := p*r*r + r + 1
	return math.Float32frombits(math.Float32bits(e) + uint32(int32(n))<<23)
}

// exp32's constants (expShiftAVX2 takes the same).
const (
	expLog2e = 1.44269504088896341
	expLn2hi = 0.693359375
	expLn2lo = -2.12194440e-4
	expHigh  = 88.3762626647949
	expLow   = -87.3365447504019
	expP0    = 1.9875691500e-4
	expP1    = 1.3981999507e-3
	expP2    = 8.3334519073e-3
	expP3    = 4.1665795894e-2
	expP4    = 1.6666665459e-1
	expP5    = 5.0000001201e-1
)
