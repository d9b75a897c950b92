package metrics

import (
	"fmt"
	"sort"
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
	return fmt.Errorf("convention %q: want one of %s", c, strings.Join(Conventions, ", "))
}

// conventionSamples feeds a completed record's TPOT and ITL samples under
// the step's convention.
func (s *Step) conventionSamples(r *record.Record, f requestFigures) {
	switch s.convention {
	case ConventionVLLM:
		s.vllmSamples(r)
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

// vllmSamples are a record's figures as vLLM's `bench serve` computes them
// (vllm/benchmarks/lib/endpoint_request_func.py, serve.py
// calculate_metrics): TTFT to the first event with choices and latency to
// the last (role-only and finish-only events included, which
// record.OtherEvents keeps); ITL each gap between such events; TPOT
// (latency - TTFT) / (n - 1) for n > 1. They replace tpsbench's TTFT and
// E2E samples; numpy statistics over exact samples (newExact).
func (s *Step) vllmSamples(r *record.Record) {
	events := make([]int64, 0, len(r.Chunks)+len(r.OtherEvents))
	for _, c := range r.Chunks {
		events = append(events, c.At)
	}
	events = append(events, r.OtherEvents...)
	if len(events) == 0 {
		return // vLLM fails a response without an event with choices
	}
	sort.Slice(events, func(i, j int) bool { return events[i] < events[j] })
	ttft, latency := float64(events[0]), float64(events[len(events)-1])
	s.ttft.add(ttft)
	s.e2e.add(latency)
	for i := 1; i < len(events); i++ {
		s.itl.add(float64(events[i] - events[i-1]))
	}
	if n := r.OutputTokens; n > 1 {
		s.tpot.add((latency - ttft) / float64(n-1))
	}
}

// setConvention makes the step report under convention c.
func (s *Step) setConvention(c string) {
	s.convention = c
	if c == ConventionVLLM {
		s.ttft, s.tpot, s.itl, s.e2e = newExact(), newExact(), newExact(), newExact()
	}
}
