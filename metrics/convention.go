package metrics

import (
	"fmt"
	"math"
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
func (s *Accumulator) conventionSamples(r *record.Record, f requestFigures) {
	switch s.convention {
	case ConventionVLLM:
		s.vllmSamples(r)
	case ConventionGuideLLM:
		s.guidellmSamples(r)
	case ConventionGenAIPerf:
		s.genaiPerfSamples(r)
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
func (s *Accumulator) vllmSamples(r *record.Record) {
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

// guidellmSamples are a record's figures as GuideLLM computes them
// (src/guidellm/schemas/request_stats.py; benchmark/schemas/metrics.py,
// GenerativeMetrics.compile): TTFT to the first token; TPOT (last token -
// start) / n, the first token included, weighted by n; ITL (last - first)
// / (n - 1) weighted by n - 1, so a one-token request has none; latency to
// the end of the response, not to its last token; n from usage, else one a
// streamed iteration (chunk). Percentiles by rank over the weights
// (newRank); its output tokens per second is not a request's figure but a
// rate over every token event of the step (guidellm.go).
func (s *Accumulator) guidellmSamples(r *record.Record) {
	n := guidellmTokens(r)
	if n <= 0 || r.First < r.Sent {
		return
	}
	s.ttft.add(float64(r.First - r.Sent))
	s.e2e.add(float64(r.Done - r.Sent))
	s.tpot.addN(float64(r.Last-r.Sent)/float64(n), int64(n))
	if n > 1 {
		s.itl.addN(float64(r.Last-r.First)/float64(n-1), int64(n-1))
	}
	s.guidellm = append(s.guidellm, guidellmTimings(r, n)...)
}

// genaiPerfSamples are a record's figures as GenAI-Perf computes them
// (genai_perf/profile_data_parser/llm_profile_data_parser.py
// _parse_requests, metrics/statistics.py): TTFT to the first response with
// content, request latency to the last one; for a request of more than
// one response and n > 1, ITL (latency - TTFT) / (n - 1) rounded to the ns
// as Python's round does (half to even), and its output TPS per user 1 /
// that ITL; no TPOT. Responses read at once are one response (it merges
// them). np.mean, np.percentile (linear), np.std (population) over every
// sample. GenAI-Perf reads no reasoning_content: its content, times and
// count are the answer's.
func (s *Accumulator) genaiPerfSamples(r *record.Record) {
	n := r.OutputTokens
	if r.TokenizerTokens > 0 {
		n = r.TokenizerTokens // it counts with its tokenizer, usage or not
	}
	n = max(n-r.ReasoningTokens, 0)
	first, last, ok := r.AnswerSpan()
	if n <= 0 || !ok || first < r.Sent {
		return
	}
	ttft, latency := first-r.Sent, last-r.Sent
	s.ttft.add(float64(ttft))
	s.e2e.add(float64(latency))
	if n > 1 && answerResponses(r) > 1 {
		itl := math.RoundToEven(float64(latency-ttft) / float64(n-1))
		s.itl.add(itl)
		if itl > 0 {
			s.reqTPS.add(1e9 / itl)
		}
	}
}

// answerResponses counts the moments answer text arrived: GenAI-Perf's
// responses with content, those read together merged into one.
func answerResponses(r *record.Record) int {
	n, last := 0, int64(-1)
	for _, c := range r.Chunks {
		if c.Kind != record.ChunkReasoning && c.At != last {
			n++
			last = c.At
		}
	}
	return n
}

// setConvention makes the step report under convention c: every sample
// kept, and the peer's statistics.
func (s *Accumulator) setConvention(c string) {
	s.convention = c
	switch c {
	case ConventionVLLM:
		s.ttft, s.tpot, s.itl, s.e2e = newExact(), newExact(), newExact(), newExact()
		s.lag = newExact()
	case ConventionGenAIPerf:
		s.ttft, s.tpot, s.itl, s.e2e = newExact(), newExact(), newExact(), newExact()
		s.reqTPS = keepSamples(newRate(), false) // its output TPS per user
	case ConventionGuideLLM:
		s.ttft, s.tpot, s.itl, s.e2e = newRank(), newRank(), newRank(), newRank()
	}
}

// ownTimes reports whether the step's convention takes TTFT and E2E its
// own way (so tpsbench's are not added).
func (s *Accumulator) ownTimes() bool {
	return s.convention == ConventionVLLM || s.convention == ConventionGuideLLM || s.convention == ConventionGenAIPerf
}
