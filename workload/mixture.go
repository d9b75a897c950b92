package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/record"
)

// LengthMode is one component of a mixture of request lengths: prompts
// and outputs of normal lengths, drawn for a share of the requests.
type LengthMode struct {
	Input, InputStddev   float64
	Output, OutputStddev float64
	Weight               float64 // relative to the other modes'
}

// maxModes bounds a mixture.
const maxModes = 64

// ParseSeqDist reads a mixture of lengths as AIPerf's --seq-dist writes
// it: "ISL,OSL:WEIGHT" modes joined by ";", each length optionally
// "MEAN|STDDEV", e.g. "256|32,128:60;1024,256|64:40". Weights are
// relative; a mode without one weighs 1.
func ParseSeqDist(s string) ([]LengthMode, error) {
	var modes []LengthMode
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lengths, weight, hasWeight := strings.Cut(part, ":")
		in, out, ok := strings.Cut(lengths, ",")
		if !ok {
			return nil, fmt.Errorf("%q: want INPUT,OUTPUT[:WEIGHT], each length MEAN or MEAN|STDDEV", part)
		}
		m := LengthMode{Weight: 1}
		var err error
		if m.Input, m.InputStddev, err = meanStddev(in, MaxPromptTokens); err != nil {
			return nil, fmt.Errorf("%q: input %w", part, err)
		}
		if m.Output, m.OutputStddev, err = meanStddev(out, record.MaxTokens); err != nil {
			return nil, fmt.Errorf("%q: output %w", part, err)
		}
		if hasWeight {
			if m.Weight, err = strconv.ParseFloat(strings.TrimSpace(weight), 64); err != nil || !(m.Weight > 0) || math.IsInf(m.Weight, 0) {
				return nil, fmt.Errorf("%q: weight %q: want a number above 0", part, weight)
			}
		}
		modes = append(modes, m)
		if len(modes) > maxModes {
			return nil, fmt.Errorf("more than %d modes", maxModes)
		}
	}
	if len(modes) == 0 {
		return nil, fmt.Errorf("%q: no modes", s)
	}
	return modes, nil
}

// meanStddev reads "MEAN" or "MEAN|STDDEV", a mean of 1 to hi tokens.
func meanStddev(s string, hi int) (mean, sd float64, err error) {
	ms, sds, hasSD := strings.Cut(strings.TrimSpace(s), "|")
	mean, err = strconv.ParseFloat(strings.TrimSpace(ms), 64)
	if err != nil || !(mean >= 1 && mean <= float64(hi)) {
		return 0, 0, fmt.Errorf("length %q: want a mean of 1 to %d tokens", s, hi)
	}
	if hasSD {
		sd, err = strconv.ParseFloat(strings.TrimSpace(sds), 64)
		if err != nil || !(sd >= 0 && sd <= float64(hi)) {
			return 0, 0, fmt.Errorf("length %q: want a standard deviation from 0 to %d", s, hi)
		}
	}
	return mean, sd, nil
}

// pick chooses a mode by weight from u in [0, 1).
func pick(modes []LengthMode, u float64) LengthMode {
	weights := make([]float64, len(modes))
	for i, m := range modes {
		weights[i] = m.Weight
	}
	return modes[weighted(weights, u)]
}

// weighted is the index u in [0, 1) falls on when the weights share the
// unit interval in order.
func weighted(weights []float64, u float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	at := u * total
	for i, w := range weights {
		if at < w {
			return i
		}
		at -= w
	}
	return len(weights) - 1
}
