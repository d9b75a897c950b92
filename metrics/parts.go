package metrics

import (
	"sort"

	"github.com/tpsbench/tpsbench/record"
)

// PartFigures are one part of a step that sent to several models (a mix
// of LoRA adapters, or of served models) or several servers (replicas):
// its requests and the figures a user of that part feels.
type PartFigures struct {
	Name         string `json:"name"` // the model, or the server's URL
	Completed    int    `json:"completed"`
	Failed       int    `json:"failed"`
	OutputTokens int64  `json:"output_tokens"`
	TTFT         Dist   `json:"ttft_ms"`
	TPOT         Dist   `json:"tpot_ms"`
	RequestTPS   Dist   `json:"request_tps"`
}

// maxPartsApart bounds the parts a step's figures are kept apart for;
// past it, further ones count together.
const maxPartsApart = 64

// otherPartsKey gathers the parts past maxPartsApart.
const otherPartsKey = "(others)"

// byPart gathers a step's figures part by part (model, or URL).
type byPart map[string]*partAcc

type partAcc struct {
	completed, failed int
	output            int64
	ttft, tpot, tps   *histogram
}

// add counts a measured record under key.
func (b byPart) add(key string, r *record.Record, f requestFigures) {
	a := b[key]
	if a == nil {
		if len(b) >= maxPartsApart {
			key = otherPartsKey
			a = b[key]
		}
		if a == nil {
			a = &partAcc{ttft: newLatency(), tpot: newLatency(), tps: newRate()}
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

// figures are each part's, in name order, or nil for a step of one.
func (b byPart) figures() []PartFigures {
	if len(b) < 2 {
		return nil
	}
	out := make([]PartFigures, 0, len(b))
	for name, a := range b {
		out = append(out, PartFigures{Name: name, Completed: a.completed, Failed: a.failed, OutputTokens: a.output,
			TTFT: a.ttft.summary(1e6), TPOT: a.tpot.summary(1e6), RequestTPS: a.tps.summary(1)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
