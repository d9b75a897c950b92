package workload

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Ways a model mix assigns a request its model, as vLLM's benchmark
// assigns LoRA adapters.
const (
	AssignRandom     = "random"      // by weight, drawn from the seed and the request's index
	AssignRoundRobin = "round-robin" // in turn, by the request's index
)

// ModelMix sends each request of Source to one of Models (LoRA adapters,
// or models a server serves side by side): by weight at random, or in
// turn.
type ModelMix struct {
	Source
	Models  []string
	Weights []float64 // one a model, above 0
	Assign  string    // AssignRandom or AssignRoundRobin
	Seed    uint64
}

// maxMixModels bounds a mix.
const maxMixModels = 256

// ParseModelMix reads "a,b" or "a:3,b:1" (names with weights, 1 when
// none is given).
func ParseModelMix(s string) (models []string, weights []float64, err error) {
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, w, hasWeight := strings.Cut(part, ":")
		name = strings.TrimSpace(name)
		weight := 1.0
		if hasWeight {
			weight, err = strconv.ParseFloat(strings.TrimSpace(w), 64)
			if err != nil || !(weight > 0) || weight > 1e9 {
				return nil, nil, fmt.Errorf("%q: want NAME or NAME:WEIGHT, a weight above 0", part)
			}
		}
		if name == "" || seen[name] {
			return nil, nil, fmt.Errorf("%q: want each model named once", part)
		}
		seen[name] = true
		models, weights = append(models, name), append(weights, weight)
		if len(models) > maxMixModels {
			return nil, nil, fmt.Errorf("more than %d models", maxMixModels)
		}
	}
	if len(models) == 0 {
		return nil, nil, fmt.Errorf("%q: no models", s)
	}
	return models, weights, nil
}

// Item implements Source: the item with its model.
func (m ModelMix) Item(seq int, warmup bool) Item {
	it := m.Source.Item(seq, warmup)
	if m.Assign == AssignRoundRobin {
		it.Model = m.Models[seq%len(m.Models)]
		return it
	}
	stream := uint64(seq)
	if warmup {
		stream |= 1 << 62
	}
	u := rand.New(rand.NewPCG(m.Seed^0x10ad, stream)).Float64()
	it.Model = m.Models[weighted(m.Weights, u)]
	return it
}
