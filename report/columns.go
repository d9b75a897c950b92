package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

// column is one figure of a step, as every format shows it: the CSV's
// column and the Markdown table it goes in, the summary tables' cells
// (views), and the JSON's field through metrics.Summary. A figure added
// to metrics.Summary and given a row here is in every format.
type column struct {
	name  string
	group string // Markdown table it goes in
	unit  string // of a number: "ms" reads as a time, others as a rate or a share
	// num is a numeric figure, ok false when the step has none (absent,
	// not 0); count marks a count, shown without decimals. text is a
	// textual one. A column has num or text.
	num   func(s *metrics.Summary) (v float64, ok bool)
	count bool
	text  func(s *metrics.Summary) string
}

// value is the figure as the CSV and Markdown carry it: "" when absent.
func (c column) value(s *metrics.Summary) string {
	if c.text != nil {
		return c.text(s)
	}
	v, ok := c.num(s)
	switch {
	case !ok:
		return ""
	case c.count:
		return strconv.FormatInt(int64(v), 10)
	}
	return f64(v)
}

// show is the figure as a person reads it in a summary table: "-" when
// absent, times in ms or s, rates with two decimals.
func (c column) show(s *metrics.Summary) string {
	if c.text != nil {
		return c.text(s)
	}
	v, ok := c.num(s)
	switch {
	case !ok:
		return "-"
	case c.count:
		return strconv.FormatInt(int64(v), 10)
	case c.unit == "ms":
		return ms(v)
	}
	return fmt.Sprintf("%.2f", v)
}

func f64(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func textCol(name, group string, get func(s *metrics.Summary) string) column {
	return column{name: name, group: group, text: get}
}

func countCol(name, group string, get func(s *metrics.Summary) int64) column {
	return column{name: name, group: group, count: true, num: func(s *metrics.Summary) (float64, bool) { return float64(get(s)), true }}
}

func realCol(name, group, unit string, get func(s *metrics.Summary) float64) column {
	return column{name: name, group: group, unit: unit, num: func(s *metrics.Summary) (float64, bool) { return get(s), true }}
}

// absentIfZero is a figure that is 0 only when there is none (a peak of
// a step too short for its window).
func absentIfZero(get func(s *metrics.Summary) float64) func(s *metrics.Summary) (float64, bool) {
	return func(s *metrics.Summary) (float64, bool) { v := get(s); return v, v != 0 }
}

// generating is a figure of generated tokens: absent from a step whose
// requests generate none (embeddings), where 0 would read as a measure.
func generating(get func(s *metrics.Summary) float64) func(s *metrics.Summary) (float64, bool) {
	return func(s *metrics.Summary) (float64, bool) { return get(s), !s.Outputless }
}

// distStats are the statistics of a distribution the columns carry.
var distStats = []struct {
	name string
	get  func(d metrics.Dist) float64
}{
	{"mean", func(d metrics.Dist) float64 { return d.Mean }},
	{"stddev", func(d metrics.Dist) float64 { return d.Stddev }},
	{"min", func(d metrics.Dist) float64 { return d.Min }},
	{"p50", func(d metrics.Dist) float64 { return d.P50 }},
	{"p90", func(d metrics.Dist) float64 { return d.P90 }},
	{"p95", func(d metrics.Dist) float64 { return d.P95 }},
	{"p99", func(d metrics.Dist) float64 { return d.P99 }},
	{"p999", func(d metrics.Dist) float64 { return d.P999 }},
	{"max", func(d metrics.Dist) float64 { return d.Max }},
	{"count", func(d metrics.Dist) float64 { return float64(d.Count) }},
}

// distColumns are a distribution's statistics (of stats, all when nil),
// named name_stat, in group; all but the count are absent when the
// distribution has no sample, and so are all when present says none.
func distColumns(name, group, unit string, stats []string, get func(s *metrics.Summary) (metrics.Dist, bool), extra ...string) []column {
	var cols []column
	for _, key := range extra { // the percentiles asked for (metrics.Dist.Percentiles)
		cols = append(cols, column{name: name + "_" + key, group: group, unit: unit, num: func(s *metrics.Summary) (float64, bool) {
			d, ok := get(s)
			v, has := d.Percentiles[key]
			return v, ok && has
		}})
	}
	for _, st := range distStats {
		if stats != nil && !slices.Contains(stats, st.name) {
			continue
		}
		c := column{name: name + "_" + st.name, group: group, unit: unit, count: st.name == "count"}
		c.num = func(s *metrics.Summary) (float64, bool) {
			d, ok := get(s)
			return st.get(d), ok && (d.Count > 0 || st.name == "count")
		}
		if c.count {
			c.unit = ""
		}
		cols = append(cols, c)
	}
	return cols
}

// stepDist is a step's distribution, always present.
func stepDist(get func(s *metrics.Summary) metrics.Dist) func(s *metrics.Summary) (metrics.Dist, bool) {
	return func(s *metrics.Summary) (metrics.Dist, bool) { return get(s), true }
}

// columns are every figure, with extra percentiles (keys of
// metrics.Dist.Percentiles, percentileKeys) for each distribution.
func columns(extra ...string) []column {
	cols := []column{
		textCol("label", "steps", func(s *metrics.Summary) string { return s.Label }),
		textCol("model", "steps", func(s *metrics.Summary) string { return s.Model }),
		textCol("url", "steps", func(s *metrics.Summary) string { return s.URL }),
		textCol("api", "steps", func(s *metrics.Summary) string { return s.API }),
		countCol("concurrency", "steps", func(s *metrics.Summary) int64 { return int64(s.Concurrency) }),
		realCol("rate", "steps", "requests/s", func(s *metrics.Summary) float64 { return s.Rate }),
		countCol("completed", "throughput", func(s *metrics.Summary) int64 { return int64(s.Requests.Completed) }),
		countCol("failed", "throughput", func(s *metrics.Summary) int64 { return int64(s.Requests.Failed) }),
		countCol("cancelled", "throughput", func(s *metrics.Summary) int64 { return int64(s.Requests.Cancelled) }),
		realCol("error_rate", "throughput", "", func(s *metrics.Summary) float64 { return s.ErrorRate }),
		realCol("duration_s", "throughput", "s", func(s *metrics.Summary) float64 { return s.DurationS }),
		countCol("input_tokens", "throughput", func(s *metrics.Summary) int64 { return s.InputTokens }),
		{name: "output_tokens", group: "throughput", count: true, num: generating(func(s *metrics.Summary) float64 { return float64(s.OutputTokens) })},
		{name: "inputs", group: "throughput", count: true, num: func(s *metrics.Summary) (float64, bool) { return float64(s.Inputs), s.Outputless }},
		{name: "inputs_per_s", group: "throughput", unit: "inputs/s", num: func(s *metrics.Summary) (float64, bool) { return s.InputsPerSecond, s.Outputless }},
		{name: "audio_s", group: "throughput", unit: "s", num: absentIfZero(func(s *metrics.Summary) float64 { return s.AudioSeconds })},
		{name: "real_time_factor", group: "throughput", num: absentIfZero(func(s *metrics.Summary) float64 { return s.RealTimeFactor })},
		{name: "audio_s_per_s", group: "throughput", num: absentIfZero(func(s *metrics.Summary) float64 { return s.AudioSecondsPerSecond })},
		countCol("cached_tokens", "throughput", func(s *metrics.Summary) int64 { return s.CachedTokens }),
		{name: "cached_share", group: "throughput", num: absentIfZero(func(s *metrics.Summary) float64 { return s.CachedShare })},
		{name: "system_tps", group: "throughput", unit: "tokens/s", num: generating(func(s *metrics.Summary) float64 { return s.SystemTPS })},
		realCol("total_tps", "throughput", "tokens/s", func(s *metrics.Summary) float64 { return s.TotalTPS }),
		realCol("request_throughput", "throughput", "requests/s", func(s *metrics.Summary) float64 { return s.RequestThroughput }),
		// a concurrency step has no schedule to achieve
		{name: "achieved_rate", group: "throughput", unit: "requests/s",
			num: func(s *metrics.Summary) (float64, bool) { return s.AchievedRate, s.Rate != 0 }},
		realCol("achieved_concurrency", "throughput", "", func(s *metrics.Summary) float64 { return s.AchievedConcurrency }),
		{name: "per_request_tps", group: "throughput", unit: "tokens/s", num: generating(func(s *metrics.Summary) float64 { return s.PerRequestTPS })},
		{name: "peak_tps", group: "throughput", unit: "tokens/s", num: absentIfZero(func(s *metrics.Summary) float64 { return s.PeakTPS })},
		{name: "peak_tps_60s", group: "throughput", unit: "tokens/s", num: absentIfZero(func(s *metrics.Summary) float64 { return s.PeakTPS60 })},
	}
	for _, d := range []struct {
		name, unit string
		get        func(s *metrics.Summary) metrics.Dist
	}{
		{"ttft_ms", "ms", func(s *metrics.Summary) metrics.Dist { return s.TTFT }},
		{"tpot_ms", "ms", func(s *metrics.Summary) metrics.Dist { return s.TPOT }},
		{"itl_ms", "ms", func(s *metrics.Summary) metrics.Dist { return s.ITL }},
		{"inter_chunk_ms", "ms", func(s *metrics.Summary) metrics.Dist { return s.InterChunk }},
		{"e2e_ms", "ms", func(s *metrics.Summary) metrics.Dist { return s.E2E }},
		{"request_tps", "tokens/s", func(s *metrics.Summary) metrics.Dist { return s.RequestTPS }},
		{"decode_tps", "tokens/s", func(s *metrics.Summary) metrics.Dist { return s.DecodeTPS }},
		{"client_lag_ms", "ms", func(s *metrics.Summary) metrics.Dist { return s.ClientLag }},
		{"ttst_ms", "ms", func(s *metrics.Summary) metrics.Dist { return s.TTST }},
		{"prefill_tps", "tokens/s", func(s *metrics.Summary) metrics.Dist { return s.PrefillTPS }},
	} {
		cols = append(cols, distColumns(d.name, d.name, d.unit, nil, stepDist(d.get), extra...)...)
	}
	cols = append(cols, reasoningColumns()...)
	cols = append(cols, replayColumns()...)
	cols = append(cols, sessionColumns()...)
	for _, k := range record.Kinds {
		cols = append(cols, countCol("failures_"+k, "counts", func(s *metrics.Summary) int64 { return int64(s.Requests.Failures[k]) }))
	}
	// why most of the failures failed: the most frequent reason's first
	// message (JSON lists every reason)
	cols = append(cols, textCol("failure_reason", "counts", func(s *metrics.Summary) string {
		if r := s.Requests.Reasons; len(r) > 0 {
			return fmt.Sprintf("%d %s: %s", r[0].Count, r[0].Kind, r[0].Example)
		}
		return ""
	}))
	for _, src := range []string{record.SourceUsage, record.SourceTokenizer, record.SourceChunks} {
		cols = append(cols, countCol("tokens_from_"+src, "counts", func(s *metrics.Summary) int64 { return int64(s.TokenSources[src]) }))
	}
	return append(cols,
		countCol("token_mismatch", "counts", func(s *metrics.Summary) int64 { return int64(s.TokenMismatch) }),
		column{name: "goodput_tps", group: "counts", unit: "tokens/s", num: func(s *metrics.Summary) (float64, bool) {
			if s.Goodput == nil {
				return 0, false
			}
			return s.Goodput.TPS, true
		}},
		textCol("targets", "counts", func(s *metrics.Summary) string { return targetCell(s.Targets) }),
		accuracyCol("accuracy", false, func(a *metrics.Accuracy) (float64, bool) { return a.Share, true }),
		accuracyCol("answers_graded", true, func(a *metrics.Accuracy) (float64, bool) { return float64(a.Graded), true }),
		accuracyCol("answers_same_as_first", true, func(a *metrics.Accuracy) (float64, bool) { return float64(a.SameAsFirst), a.Compared > 0 }),
		accuracyCol("answers_compared", true, func(a *metrics.Accuracy) (float64, bool) { return float64(a.Compared), a.Compared > 0 }),
	)
}

// accuracyCol is a figure of a step's graded answers, absent from a step
// that graded none.
func accuracyCol(name string, count bool, get func(a *metrics.Accuracy) (float64, bool)) column {
	return column{name: name, group: "counts", count: count, num: func(s *metrics.Summary) (float64, bool) {
		if s.Accuracy == nil {
			return 0, false
		}
		return get(s.Accuracy)
	}}
}

// percentileKeys are the extra percentiles the steps' distributions
// carry (metrics.Dist.Percentiles), in rising order.
func percentileKeys(steps []metrics.Summary) []string {
	seen := map[string]float64{}
	for _, s := range steps {
		for _, d := range []metrics.Dist{s.TTFT, s.TPOT, s.ITL, s.InterChunk, s.E2E, s.RequestTPS, s.DecodeTPS, s.ClientLag, s.TTST, s.PrefillTPS} {
			for k := range d.Percentiles {
				q, _ := strconv.ParseFloat(strings.TrimPrefix(k, "p"), 64)
				seen[k] = q
			}
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return seen[keys[i]] < seen[keys[j]] })
	return keys
}

// reasoningGroup is the Markdown table of reasoning figures, left out
// when no step has them.
const reasoningGroup = "reasoning"

// reasoningColumns are the reasoning models' figures: absent for a step
// without reasoning or tool calls.
func reasoningColumns() []column {
	count := func(name string, get func(g *metrics.Reasoning) int64) column {
		return column{name: name, group: reasoningGroup, count: true, num: func(s *metrics.Summary) (float64, bool) {
			if s.Reasoning == nil {
				return 0, false
			}
			return float64(get(s.Reasoning)), true
		}}
	}
	cols := []column{
		count("reasoning_requests", func(g *metrics.Reasoning) int64 { return int64(g.Requests) }),
		count("reasoning_tokens", func(g *metrics.Reasoning) int64 { return g.ReasoningTokens }),
		count("reasoning_answer_tokens", func(g *metrics.Reasoning) int64 { return g.AnswerTokens }),
		count("reasoning_tool_call_tokens", func(g *metrics.Reasoning) int64 { return g.ToolCallTokens }),
		{name: "reasoning_answer_system_tps", group: reasoningGroup, unit: "tokens/s", num: func(s *metrics.Summary) (float64, bool) {
			if s.Reasoning == nil {
				return 0, false
			}
			return s.Reasoning.AnswerSystemTPS, true
		}},
	}
	for _, d := range []struct {
		name, unit string
		get        func(g *metrics.Reasoning) metrics.Dist
	}{
		{"ttfr_ms", "ms", func(g *metrics.Reasoning) metrics.Dist { return g.TTFR }},
		{"ttfa_ms", "ms", func(g *metrics.Reasoning) metrics.Dist { return g.TTFA }},
		{"reasoning_tps", "tokens/s", func(g *metrics.Reasoning) metrics.Dist { return g.ReasoningTPS }},
		{"answer_tps", "tokens/s", func(g *metrics.Reasoning) metrics.Dist { return g.AnswerTPS }},
	} {
		cols = append(cols, distColumns(d.name, reasoningGroup, d.unit, []string{"mean", "p50", "p99", "count"},
			func(s *metrics.Summary) (metrics.Dist, bool) {
				if s.Reasoning == nil {
					return metrics.Dist{}, false
				}
				return d.get(s.Reasoning), true
			})...)
	}
	return cols
}

// replayGroup is the Markdown table of a replay's faithfulness, left out
// when no step replayed a trace.
const replayGroup = "replay"

// replayColumns say how faithfully a step replayed its trace: absent for
// a step that replayed none.
func replayColumns() []column {
	col := func(name, unit string, count bool, get func(g *metrics.Replay) float64) column {
		return column{name: name, group: replayGroup, unit: unit, count: count, num: func(s *metrics.Summary) (float64, bool) {
			if s.Replay == nil {
				return 0, false
			}
			return get(s.Replay), true
		}}
	}
	cols := []column{col("replay_requests", "", true, func(g *metrics.Replay) float64 { return float64(g.Requests) })}
	cols = append(cols, distColumns("replay_arrival_lag_ms", replayGroup, "ms", []string{"p50", "p99", "max"},
		func(s *metrics.Summary) (metrics.Dist, bool) {
			if s.Replay == nil {
				return metrics.Dist{}, false
			}
			return s.Replay.ArrivalLag, true
		})...)
	return append(cols,
		col("replay_start_spread_ms", "ms", false, func(g *metrics.Replay) float64 { return g.StartSpreadMS }),
		col("replay_input_counted", "", true, func(g *metrics.Replay) float64 { return float64(g.InputCounted) }),
		col("replay_input_exact", "", true, func(g *metrics.Replay) float64 { return float64(g.InputExact) }),
		col("replay_input_error_mean", "", false, func(g *metrics.Replay) float64 { return g.InputErrorMean }),
		col("replay_completed", "", true, func(g *metrics.Replay) float64 { return float64(g.Completed) }),
		col("replay_output_exact", "", true, func(g *metrics.Replay) float64 { return float64(g.OutputExact) }),
		col("replay_trace_input_tokens", "", true, func(g *metrics.Replay) float64 { return float64(g.TraceInputTokens) }),
		col("replay_reusable_tokens", "", true, func(g *metrics.Replay) float64 { return float64(g.ReusableTokens) }),
	)
}

// view is a selection of columns a table shows, in its order, each
// under its heading there; show, when set, says how that table shows it.
type view []struct {
	name, heading string
	show          func(s *metrics.Summary) string
}

// viewColumn is a view's entry resolved to its column.
type viewColumn struct {
	column
	heading string
	shown   func(s *metrics.Summary) string
}

// resolve finds each entry's column; a name no column has is a defect,
// which the tests catch.
func (v view) resolve() []viewColumn {
	byName := map[string]column{}
	for _, c := range columns() {
		byName[c.name] = c
	}
	out := make([]viewColumn, 0, len(v))
	for _, e := range v {
		c, ok := byName[e.name]
		if !ok {
			continue
		}
		shown := e.show
		if shown == nil {
			shown = c.show
		}
		out = append(out, viewColumn{c, e.heading, shown})
	}
	return out
}

// summaryView is the summary tables' figures: the text report's table of
// steps, and (with summaryViewWide) the HTML page's.
var summaryView = view{
	{"concurrency", "concurrency", loadCell},
	{"completed", "requests", nil},
	{"failed", "failed", nil},
	{"system_tps", "system TPS", nil},
	{"request_tps_mean", "per-request TPS", nil},
	{"ttft_ms_p50", "TTFT p50", nil},
	{"ttft_ms_p99", "TTFT p99", nil},
	{"tpot_ms_p50", "TPOT p50", nil},
	{"tpot_ms_p99", "TPOT p99", nil},
}

// summaryViewWide adds what a page has the width for.
var summaryViewWide = append(summaryView[:len(summaryView):len(summaryView)], view{
	{"output_tokens", "output tokens", nil},
	{"itl_ms_p99", "ITL p99", nil},
	{"e2e_ms_p50", "E2E p50", nil},
}...)

// outputlessView and outputlessViewWide stand for the summary views when
// every step's requests generate nothing (embeddings): no TPS applies.
var outputlessView = view{
	{"concurrency", "concurrency", loadCell},
	{"completed", "requests", nil},
	{"failed", "failed", nil},
	{"inputs_per_s", "inputs/s", nil},
	{"request_throughput", "requests/s", nil},
	{"e2e_ms_p50", "E2E p50", nil},
	{"e2e_ms_p99", "E2E p99", nil},
}

var outputlessViewWide = append(outputlessView[:len(outputlessView):len(outputlessView)], view{
	{"inputs", "inputs", nil},
	{"input_tokens", "prompt tokens", nil},
	{"total_tps", "prompt tokens/s", nil},
}...)

// summaryViews are the summary tables' views for these steps: narrow
// (text) and wide (HTML).
func summaryViews(steps []metrics.Summary) (narrow, wide view) {
	if allOutputless(steps) {
		return outputlessView, outputlessViewWide
	}
	return summaryView, summaryViewWide
}

// ratioView is the figures compared against the first step.
var ratioView = view{
	{"system_tps", "system TPS", nil},
	{"request_tps_mean", "per-request TPS", nil},
	{"decode_tps_mean", "decode TPS", nil},
	{"ttft_ms_p50", "TTFT p50", nil},
	{"tpot_ms_p50", "TPOT p50", nil},
	{"e2e_ms_p50", "E2E p50", nil},
}

// outputlessRatioView is ratioView for steps that generate nothing.
var outputlessRatioView = view{
	{"inputs_per_s", "inputs/s", nil},
	{"request_throughput", "requests/s", nil},
	{"e2e_ms_p50", "E2E p50", nil},
	{"e2e_ms_p99", "E2E p99", nil},
}

// ratioViewOf is the figures steps are compared on: TPS and latencies,
// or, when none generates, what applies to them.
func ratioViewOf(steps []metrics.Summary) view {
	if allOutputless(steps) {
		return outputlessRatioView
	}
	return ratioView
}

// loadCell is a step's load as the summary tables show it: its
// concurrency, or its rate asked and achieved (after a cap on the
// requests in flight when there is one), or "as it came".
func loadCell(s *metrics.Summary) string {
	switch {
	case s.Rate > 0 && s.Concurrency > 0:
		return fmt.Sprintf("%d @%.3g/s (got %.3g)", s.Concurrency, s.Rate, s.AchievedRate)
	case s.Rate > 0:
		return fmt.Sprintf("@%.3g/s (got %.3g)", s.Rate, s.AchievedRate)
	case s.Concurrency == 0:
		return "as it came" // a proxy's or a trace's: no load was set
	}
	return strconv.Itoa(s.Concurrency)
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
