package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

// column is one figure of a step, shared by the CSV and Markdown renderers
// so that both carry the same figures.
type column struct {
	name  string
	group string // Markdown table it goes in
	value func(s *metrics.Summary) string
}

func f64(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// absentIfZero shows a figure that is 0 only when there is none (a peak
// of a step too short for its window) as absent.
func absentIfZero(v float64) string {
	if v == 0 {
		return ""
	}
	return f64(v)
}

func columns() []column {
	cols := []column{
		{"label", "steps", func(s *metrics.Summary) string { return s.Label }},
		{"model", "steps", func(s *metrics.Summary) string { return s.Model }},
		{"url", "steps", func(s *metrics.Summary) string { return s.URL }},
		{"api", "steps", func(s *metrics.Summary) string { return s.API }},
		{"concurrency", "steps", func(s *metrics.Summary) string { return strconv.Itoa(s.Concurrency) }},
		{"rate", "steps", func(s *metrics.Summary) string { return f64(s.Rate) }},
		{"completed", "throughput", func(s *metrics.Summary) string { return strconv.Itoa(s.Requests.Completed) }},
		{"failed", "throughput", func(s *metrics.Summary) string { return strconv.Itoa(s.Requests.Failed) }},
		{"error_rate", "throughput", func(s *metrics.Summary) string { return f64(s.ErrorRate) }},
		{"duration_s", "throughput", func(s *metrics.Summary) string { return f64(s.DurationS) }},
		{"input_tokens", "throughput", func(s *metrics.Summary) string { return strconv.FormatInt(s.InputTokens, 10) }},
		{"output_tokens", "throughput", func(s *metrics.Summary) string { return strconv.FormatInt(s.OutputTokens, 10) }},
		{"system_tps", "throughput", func(s *metrics.Summary) string { return f64(s.SystemTPS) }},
		{"total_tps", "throughput", func(s *metrics.Summary) string { return f64(s.TotalTPS) }},
		{"request_throughput", "throughput", func(s *metrics.Summary) string { return f64(s.RequestThroughput) }},
		{"achieved_rate", "throughput", func(s *metrics.Summary) string {
			if s.Rate == 0 {
				return "" // no schedule to achieve: a concurrency step
			}
			return f64(s.AchievedRate)
		}},
		{"achieved_concurrency", "throughput", func(s *metrics.Summary) string { return f64(s.AchievedConcurrency) }},
		{"per_request_tps", "throughput", func(s *metrics.Summary) string { return f64(s.PerRequestTPS) }},
		{"peak_tps", "throughput", func(s *metrics.Summary) string { return absentIfZero(s.PeakTPS) }},
		{"peak_tps_60s", "throughput", func(s *metrics.Summary) string { return absentIfZero(s.PeakTPS60) }},
	}
	dists := []struct {
		name string
		get  func(s *metrics.Summary) metrics.Dist
	}{
		{"ttft_ms", func(s *metrics.Summary) metrics.Dist { return s.TTFT }},
		{"tpot_ms", func(s *metrics.Summary) metrics.Dist { return s.TPOT }},
		{"itl_ms", func(s *metrics.Summary) metrics.Dist { return s.ITL }},
		{"inter_chunk_ms", func(s *metrics.Summary) metrics.Dist { return s.InterChunk }},
		{"e2e_ms", func(s *metrics.Summary) metrics.Dist { return s.E2E }},
		{"request_tps", func(s *metrics.Summary) metrics.Dist { return s.RequestTPS }},
		{"decode_tps", func(s *metrics.Summary) metrics.Dist { return s.DecodeTPS }},
		{"client_lag_ms", func(s *metrics.Summary) metrics.Dist { return s.ClientLag }},
	}
	stats := []distStat{
		{"mean", func(d metrics.Dist) string { return f64(d.Mean) }},
		{"stddev", func(d metrics.Dist) string { return f64(d.Stddev) }},
		{"min", func(d metrics.Dist) string { return f64(d.Min) }},
		{"p50", func(d metrics.Dist) string { return f64(d.P50) }},
		{"p90", func(d metrics.Dist) string { return f64(d.P90) }},
		{"p95", func(d metrics.Dist) string { return f64(d.P95) }},
		{"p99", func(d metrics.Dist) string { return f64(d.P99) }},
		{"p999", func(d metrics.Dist) string { return f64(d.P999) }},
		{"max", func(d metrics.Dist) string { return f64(d.Max) }},
		{"count", func(d metrics.Dist) string { return strconv.FormatInt(d.Count, 10) }},
	}
	for _, d := range dists {
		for _, st := range stats {
			cols = append(cols, column{d.name + "_" + st.name, d.name, func(s *metrics.Summary) string {
				if dist := d.get(s); dist.Count > 0 || st.name == "count" {
					return st.get(dist)
				}
				return "" // not measured: absent, not 0
			}})
		}
	}
	cols = append(cols, reasoningColumns(stats)...)
	cols = append(cols, replayColumns()...)
	for _, k := range record.Kinds {
		cols = append(cols, column{"failures_" + k, "counts", func(s *metrics.Summary) string { return strconv.Itoa(s.Requests.Failures[k]) }})
	}
	// why most of the failures failed: the most frequent reason's first
	// message (JSON lists every reason)
	cols = append(cols, column{"failure_reason", "counts", func(s *metrics.Summary) string {
		if r := s.Requests.Reasons; len(r) > 0 {
			return fmt.Sprintf("%d %s: %s", r[0].Count, r[0].Kind, r[0].Example)
		}
		return ""
	}})
	for _, src := range []string{record.SourceUsage, record.SourceTokenizer, record.SourceChunks} {
		cols = append(cols, column{"tokens_from_" + src, "counts", func(s *metrics.Summary) string { return strconv.Itoa(s.TokenSources[src]) }})
	}
	cols = append(cols,
		column{"token_mismatch", "counts", func(s *metrics.Summary) string { return strconv.Itoa(s.TokenMismatch) }},
		column{"goodput_tps", "counts", func(s *metrics.Summary) string {
			if s.Goodput == nil {
				return ""
			}
			return f64(s.Goodput.TPS)
		}},
		column{"targets", "counts", func(s *metrics.Summary) string { return targetCell(s.Targets) }},
	)
	return cols
}

// distStat is one statistic of a distribution, as a column shows it.
type distStat struct {
	name string
	get  func(d metrics.Dist) string
}

// reasoningGroup is the Markdown table of reasoning figures, left out
// when no step has them.
const reasoningGroup = "reasoning"

// reasoningColumns are the reasoning models' figures: empty for a step
// without reasoning or tool calls.
func reasoningColumns(stats []distStat) []column {
	count := func(name string, get func(g *metrics.Reasoning) string) column {
		return column{name, reasoningGroup, func(s *metrics.Summary) string {
			if s.Reasoning == nil {
				return ""
			}
			return get(s.Reasoning)
		}}
	}
	cols := []column{
		count("reasoning_requests", func(g *metrics.Reasoning) string { return strconv.Itoa(g.Requests) }),
		count("reasoning_tokens", func(g *metrics.Reasoning) string { return strconv.FormatInt(g.ReasoningTokens, 10) }),
		count("reasoning_answer_tokens", func(g *metrics.Reasoning) string { return strconv.FormatInt(g.AnswerTokens, 10) }),
		count("reasoning_tool_call_tokens", func(g *metrics.Reasoning) string { return strconv.FormatInt(g.ToolCallTokens, 10) }),
		count("reasoning_answer_system_tps", func(g *metrics.Reasoning) string { return f64(g.AnswerSystemTPS) }),
	}
	dists := []struct {
		name string
		get  func(g *metrics.Reasoning) metrics.Dist
	}{
		{"ttfr_ms", func(g *metrics.Reasoning) metrics.Dist { return g.TTFR }},
		{"ttfa_ms", func(g *metrics.Reasoning) metrics.Dist { return g.TTFA }},
		{"reasoning_tps", func(g *metrics.Reasoning) metrics.Dist { return g.ReasoningTPS }},
		{"answer_tps", func(g *metrics.Reasoning) metrics.Dist { return g.AnswerTPS }},
	}
	for _, d := range dists {
		for _, st := range stats {
			if st.name != "mean" && st.name != "p50" && st.name != "p99" && st.name != "count" {
				continue
			}
			cols = append(cols, count(d.name+"_"+st.name, func(g *metrics.Reasoning) string {
				if dist := d.get(g); dist.Count > 0 || st.name == "count" {
					return st.get(dist)
				}
				return ""
			}))
		}
	}
	return cols
}

// replayGroup is the Markdown table of a replay's faithfulness, left out
// when no step replayed a trace.
const replayGroup = "replay"

// replayColumns say how faithfully a step replayed its trace: empty for a
// step that replayed none.
func replayColumns() []column {
	col := func(name string, get func(g *metrics.Replay) string) column {
		return column{name, replayGroup, func(s *metrics.Summary) string {
			if s.Replay == nil {
				return ""
			}
			return get(s.Replay)
		}}
	}
	lag := func(stat string, get func(d metrics.Dist) float64) column {
		return col("replay_arrival_lag_ms_"+stat, func(g *metrics.Replay) string {
			if g.ArrivalLag.Count == 0 {
				return ""
			}
			return f64(get(g.ArrivalLag))
		})
	}
	return []column{
		col("replay_requests", func(g *metrics.Replay) string { return strconv.Itoa(g.Requests) }),
		lag("p50", func(d metrics.Dist) float64 { return d.P50 }),
		lag("p99", func(d metrics.Dist) float64 { return d.P99 }),
		lag("max", func(d metrics.Dist) float64 { return d.Max }),
		col("replay_start_spread_ms", func(g *metrics.Replay) string { return f64(g.StartSpreadMS) }),
		col("replay_input_counted", func(g *metrics.Replay) string { return strconv.Itoa(g.InputCounted) }),
		col("replay_input_exact", func(g *metrics.Replay) string { return strconv.Itoa(g.InputExact) }),
		col("replay_input_error_mean", func(g *metrics.Replay) string { return f64(g.InputErrorMean) }),
		col("replay_completed", func(g *metrics.Replay) string { return strconv.Itoa(g.Completed) }),
		col("replay_output_exact", func(g *metrics.Replay) string { return strconv.Itoa(g.OutputExact) }),
		col("replay_trace_input_tokens", func(g *metrics.Replay) string { return strconv.FormatInt(g.TraceInputTokens, 10) }),
		col("replay_reusable_tokens", func(g *metrics.Replay) string { return strconv.FormatInt(g.ReusableTokens, 10) }),
	}
}

// targetCell is "pass" or "fail" with the failed targets, empty without targets.
func targetCell(vs []metrics.Verdict) string {
	if len(vs) == 0 {
		return ""
	}
	var failed []string
	for _, v := range vs {
		if !v.Pass {
			failed = append(failed, fmt.Sprintf("%s=%s", v.Name, f64(v.Got)))
		}
	}
	if len(failed) == 0 {
		return "pass"
	}
	sort.Strings(failed)
	return "fail " + strings.Join(failed, " ")
}
