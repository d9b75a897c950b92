package load

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Process is how an open loop's starts are spread around its rate.
type Process string

const (
	Constant Process = "constant" // evenly spaced (the zero Gaps too)
	Poisson  Process = "poisson"  // exponential gaps: independent users
	// Gamma gaps of shape Burstiness, as vLLM's --burstiness: below 1
	// burstier than Poisson, 1 Poisson, above 1 more even
	Gamma Process = "gamma"
)

// Gaps is the spread of an open loop's starts: the gap before each is
// drawn at a rate of one a second (mean 1, whatever the process), then
// laid on the shape's rate.
type Gaps struct {
	Process    Process
	Burstiness float64 // the gamma shape, with Gamma
}

// Check says what is wrong with the gaps, if anything.
func (g Gaps) Check() error {
	switch {
	case g.Process != "" && g.Process != Constant && g.Process != Poisson && g.Process != Gamma:
		return fmt.Errorf("arrivals %q: want constant, poisson or gamma", g.Process)
	case g.Process == Gamma && !(g.Burstiness > 0 && !math.IsInf(g.Burstiness, 0)):
		return errors.New("gamma arrivals need a burstiness above 0 (1 is Poisson)")
	case g.Process != Gamma && g.Burstiness != 0:
		return errors.New("burstiness shapes gamma arrivals only")
	}
	return nil
}

// unit draws the next gap, in seconds at one start a second.
func (g Gaps) unit(rng *rand.Rand) float64 {
	switch g.Process {
	case Poisson:
		return rng.ExpFloat64()
	case Gamma:
		// shape k and scale 1/k, as vLLM draws them (scale 1/(rate k))
		return gamma(rng, g.Burstiness) / g.Burstiness
	}
	return 1
}

// arrivalRNG is the draws of an open loop's gaps from seed.
func arrivalRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// gamma draws from the gamma distribution of shape k and scale 1
// (Marsaglia and Tsang's method; for k < 1, a draw of shape k+1 scaled by
// U^(1/k)).
func gamma(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		return gamma(rng, k+1) * math.Pow(1-rng.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64() // in (0, 1]: its log is finite
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// positiveRate says whether r is a request rate a shape can go at.
func positiveRate(r float64) bool { return r > 0 && !math.IsInf(r, 0) }
