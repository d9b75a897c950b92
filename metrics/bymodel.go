package metrics

import (
	"sort"

	"github.com/tpsbench/tpsbench/record"
)

// ModelFigures are one model's part of a step that sent to several (a mix
// of LoRA adapters, or of served models): its requests and the figures a
// user of that model feels.
type ModelFigures struct {
	Model        string `json:"model"`
	Completed    int    `json:"completed"`
	Failed       int    `json:"failed"`
	OutputTokens int64  `json:"output_tokens"`
	TTFT         Dist   `json:"ttft_ms"`
	TPOT         Dist   `json:"tpot_ms"`
	RequestTPS   Dist   `json:"request_tps"`
}

// maxModelsApart bounds the models a step's figures are kept apart for;
// past it, further models count together.
const maxModelsApart = 64

// otherModelsKey gathers the models past maxModelsApart.
const otherModelsKey = "(other models)"

// byModel gathers a step's figures model by model.
type byModel map[string]*modelAcc

type modelAcc struct {
	completed, failed int
	output            int64
	ttft, tpot, tps   *histogram
}

// add counts a measured record under its model.
func (b byModel) add(r *record.Record, f requestFigures) {
	key := r.Model
	a := b[key]
	if a == nil {
		if len(b) >= maxModelsApart {
			key = otherModelsKey
			a = b[key]
		}
		if a == nil {
			a = &modelAcc{ttft: newLatency(), tpot: newLatency(), tps: newRate()}
			b[key] = a
		}
	}
	if !r.OK() {
		a.failed++
		return
	}
	a.completed++
	a.output += int64(r.OutputTokens)
	if f.hasTimes {
		a.ttft.add(f.ttft)
	}
	if f.hasTPOT {
		a.tpot.add(f.tpot)
	}
	if f.hasTPS {
		a.tps.add(f.tps)
	}
}

// figures are each model's, in name order, or nil for a step of one
// model.
func (b byModel) figures() []ModelFigures {
	if len(b) < 2 {
		return nil
	}
	out := make([]ModelFigures, 0, len(b))
	for name, a := range b {
		out = append(out, ModelFigures{Model: name, Completed: a.completed, Failed: a.failed, OutputTokens: a.output,
			TTFT: a.ttft.summary(1e6), TPOT: a.tpot.summary(1e6), RequestTPS: a.tps.summary(1)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}
