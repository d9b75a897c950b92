package metrics

import (
	"fmt"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// Conventions name how other tools define TPOT and ITL, so that the same
// records can be reported the way a user's previous tool did (see
// docs/metrics.md, "Other tools' conventions").
const (
	ConventionTpsbench  = "tpsbench"   // ours: TPOT excludes the first token; ITL per token
	ConventionVLLM      = "vllm"       // TPOT ours; ITL per chunk (our inter-chunk latency)
	ConventionGuideLLM  = "guidellm"   // TPOT (last - sent) / n, first token included; ITL = our TPOT, one a request
	ConventionGenAIPerf = "genai-perf" // no TPOT; ITL = our TPOT, one a request
)

// Conventions lists the known conventions.
var Conventions = []string{ConventionTpsbench, ConventionVLLM, ConventionGuideLLM, ConventionGenAIPerf}

// CheckConvention returns an error for an unknown convention.
func CheckConvention(c string) error {
	for _, k := range Conventions {
		if k == c {
			return nil
		}
	}
	return fmt.Errorf("--convention %q: want one of %s", c, strings.Join(Conventions, ", "))
}

// conventionSamples feeds a completed record's TPOT and ITL samples under
// the step's convention.
func (s *Step) conventionSamples(r *record.Record, f requestFigures) {
	switch s.convention {
	case ConventionVLLM:
		if f.hasTPOT {
			s.tpot.add(f.tpot)
		}
		r.ChunkGaps(func(d time.Duration) { s.itl.add(float64(d)) })
	case ConventionGuideLLM:
		if f.hasTimes {
			s.tpot.add(f.e2e / float64(r.OutputTokens))
		}
		if f.hasTPOT {
			s.itl.add(f.tpot)
		}
	case ConventionGenAIPerf:
		if f.hasTPOT {
			s.itl.add(f.tpot)
		}
	default:
		if f.hasTPOT {
			s.tpot.add(f.tpot)
		}
		r.ITLs(func(d time.Duration, n int) { s.itl.addN(float64(d), int64(n)) })
	}
}
