package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/tpsbench/tpsbench/internal/termsafe"
	"github.com/tpsbench/tpsbench/metrics"
)

// Text writes the report as the printouts of docs/design.md read: plain
// English labels; one request reads as a single measurement, one step as a
// batch, several steps as a table.
func Text(w io.Writer, r *Report) error {
	w = termsafe.Writer(w) // names and kinds come from servers and files
	ew := &errWriter{w: w}
	switch {
	case len(r.Steps) == 0:
		ew.printf("No requests were measured.\n")
	case len(r.Steps) == 1 && r.Steps[0].Requests.Completed+r.Steps[0].Requests.Failed == 1:
		single(ew, &r.Steps[0])
	case len(r.Steps) == 1:
		batch(ew, &r.Steps[0])
	default:
		table(ew, r.Steps)
		if r.Compare {
			ratios(ew, r.Steps)
		}
	}
	if len(r.Sent) > 0 {
		ew.printf("Sent with every request: %s\n", sentLine(r.Sent))
	}
	if len(r.Steps) > 0 && r.Steps[0].Convention != "" {
		ew.printf("Convention: %s (%s)\n", r.Steps[0].Convention, conventionNote[r.Steps[0].Convention])
	}
	for i := range r.Steps {
		notes(ew, &r.Steps[i], len(r.Steps) > 1)
	}
	for i := range r.Steps {
		slicesTable(ew, &r.Steps[i])
	}
	if r.TraceTiming {
		phasesTables(ew, r.Steps)
	}
	repeatsLines(ew, r.Repeats)
	targets(ew, r.Steps)
	if r.Note != "" {
		ew.printf("\n%s\n", r.Note)
	}
	if r.Interrupted {
		ew.printf("\nThe run was interrupted: these figures cover the requests that finished.\n")
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func header(ew *errWriter, s *metrics.Summary) {
	ew.printf("Model: %s\nServer: %s (%s)\n", s.Model, s.URL, s.API)
}

func single(ew *errWriter, s *metrics.Summary) {
	header(ew, s)
	if s.Requests.Completed == 0 {
		if r := s.Requests.Reasons; len(r) > 0 {
			ew.printf("The request failed (%s): %s\n", r[0].Kind, r[0].Example)
		} else {
			ew.printf("The request failed.\n")
		}
		return
	}
	e2e := s.E2E.Mean / 1e3
	ew.printf("Generated tokens: %d\n", s.OutputTokens)
	ew.printf("Elapsed: %.3f s\n", e2e)
	ew.printf("TPS: %.2f tokens/s\n", s.RequestTPS.Mean)
	ew.printf("Time to first token (TTFT): %s\n", ms(s.TTFT.Mean))
	if s.TTST.Count > 0 {
		ew.printf("Time to second token (TTST, after the first): %s\n", ms(s.TTST.Mean))
	}
	if s.PrefillTPS.Count > 0 {
		ew.printf("Prefill TPS (prompt tokens / TTFT): %.2f tokens/s\n", s.PrefillTPS.Mean)
	}
	if s.TPOT.Count > 0 {
		ew.printf("Time per output token (TPOT): %s\n", ms(s.TPOT.Mean))
		ew.printf("Decode TPS (1/TPOT): %.2f tokens/s\n", s.DecodeTPS.Mean)
	}
	if s.ITL.Count > 0 {
		ew.printf("Inter-token latency: p50 %s, p99 %s, max %s\n", ms(s.ITL.P50), ms(s.ITL.P99), ms(s.ITL.Max))
	}
	if g := s.Reasoning; g != nil {
		ew.printf("Reasoning: %d of %d tokens", g.ReasoningTokens, s.OutputTokens)
		if g.TTFR.Count > 0 {
			ew.printf(", the first after %s", ms(g.TTFR.Mean))
		}
		if g.ReasoningTPS.Count > 0 {
			ew.printf(", at %.2f tokens/s", g.ReasoningTPS.Mean)
		}
		ew.printf("\nAnswer: %d tokens", g.AnswerTokens)
		if g.ToolCallTokens > 0 {
			ew.printf(" (%d of them tool-call arguments)", g.ToolCallTokens)
		}
		if g.TTFA.Count > 0 {
			ew.printf(", the first after %s", ms(g.TTFA.Mean))
		}
		if g.AnswerTPS.Count > 0 {
			ew.printf(", at %.2f tokens/s", g.AnswerTPS.Mean)
		}
		ew.printf("\n")
	}
}

// reasoningLines prints a step's reasoning figures under its batch report.
func reasoningLines(ew *errWriter, s *metrics.Summary) {
	g := s.Reasoning
	if g == nil {
		return
	}
	share := 0.0
	if s.OutputTokens > 0 {
		share = 100 * float64(g.ReasoningTokens) / float64(s.OutputTokens)
	}
	ew.printf("Reasoning: %d of %d tokens (%.1f%%) in %s; answer %d tokens, %.2f tokens/s for the system\n",
		g.ReasoningTokens, s.OutputTokens, share, requests(g.Requests), g.AnswerTokens, g.AnswerSystemTPS)
	if g.ToolCallTokens > 0 {
		ew.printf("Tool calls: %d tokens of arguments in %s\n", g.ToolCallTokens, requests(g.ToolCallRequests))
	}
	rate := func(name string, d metrics.Dist) {
		if d.Count > 0 {
			ew.printf("%s per request: mean %.2f, p50 %.2f, min %.2f tokens/s\n", name, d.Mean, d.P50, d.Min)
		}
	}
	rate("Reasoning TPS", g.ReasoningTPS)
	rate("Answer TPS", g.AnswerTPS)
}

func batch(ew *errWriter, s *metrics.Summary) {
	header(ew, s)
	load := fmt.Sprintf("concurrency %d", s.Concurrency)
	if s.Concurrency == 0 && s.Rate == 0 {
		load = "as it came (recorded traffic: no concurrency or rate was set)"
	}
	if s.Rate > 0 {
		load = fmt.Sprintf("rate %.2f requests/s asked, %.2f achieved", s.Rate, s.AchievedRate)
		if s.RampTo > 0 {
			load = fmt.Sprintf("rate ramped from %.2f to %.2f requests/s, %.2f achieved over the step", s.RampFrom, s.RampTo, s.AchievedRate)
		}
		if s.Concurrency > 0 {
			load += fmt.Sprintf(", at most %d in flight", s.Concurrency)
		}
	}
	ew.printf("Load: %s\n", load)
	ew.printf("Total requests: %d (%d completed, %d failed: %.1f%% errors)\n", s.Requests.Completed+s.Requests.Failed, s.Requests.Completed, s.Requests.Failed, 100*s.ErrorRate)
	if s.Outputless {
		outputlessRates(ew, s)
	} else {
		generationRates(ew, s)
	}
	ew.printf("\n")
	latencyTable(ew, s)
	reasoningLines(ew, s)
}

// outputlessRates are a step's rates when its requests generate nothing
// (embeddings): inputs and prompt tokens a second, not TPS.
func outputlessRates(ew *errWriter, s *metrics.Summary) {
	per := 0.0
	if s.Requests.Completed > 0 {
		per = float64(s.Inputs) / float64(s.Requests.Completed)
	}
	ew.printf("Inputs: %d (%.2f a request), %d prompt tokens; no tokens generated\n", s.Inputs, per, s.InputTokens)
	ew.printf("Elapsed: %.3f s\n", s.DurationS)
	ew.printf("Inputs per second: %.2f; prompt tokens per second: %.2f\n", s.InputsPerSecond, s.TotalTPS)
	ew.printf("Request throughput: %.3f requests/s\n", s.RequestThroughput)
	ew.printf("Achieved concurrency: %.2f\n", s.AchievedConcurrency)
}

// generationRates are a step's token rates.
func generationRates(ew *errWriter, s *metrics.Summary) {
	ew.printf("Total tokens: %d generated, %d prompt\n", s.OutputTokens, s.InputTokens)
	ew.printf("Elapsed: %.3f s\n", s.DurationS)
	ew.printf("System TPS: %.2f tokens/s", s.SystemTPS)
	if s.InputTokens > 0 {
		ew.printf(" (prompt and output tokens together: %.2f tokens/s)", s.TotalTPS)
	}
	ew.printf("\n")
	if g := s.Goodput; g != nil {
		ew.printf("Goodput: %d of %d requests met every per-request target (%.3f requests/s, %.2f tokens/s)\n",
			g.Requests, s.Requests.Completed+s.Requests.Failed, g.RequestThroughput, g.TPS)
	}
	if s.RequestTPS.Count > 0 {
		ew.printf("Per-request TPS: mean %.2f (sd %.2f), p50 %.2f, p90 %.2f, p99 %.2f, min %.2f tokens/s\n",
			s.RequestTPS.Mean, s.RequestTPS.Stddev, s.RequestTPS.P50, s.RequestTPS.P90, s.RequestTPS.P99, s.RequestTPS.Min)
	}
	if p := s.PrefillTPS; p.Count > 0 {
		ew.printf("Prefill TPS (prompt tokens / TTFT, a request): mean %.2f, p50 %.2f, p99 %.2f, min %.2f tokens/s\n", p.Mean, p.P50, p.P99, p.Min)
	}
	ew.printf("Request throughput: %.3f requests/s\n", s.RequestThroughput)
	ew.printf("Achieved concurrency: %.2f (system TPS / concurrency: %.2f tokens/s", s.AchievedConcurrency, s.PerRequestTPS)
	if r := s.RequestTPS; r.Count > 1 && math.Abs(s.PerRequestTPS-r.Mean) > 0.01*r.Mean {
		// both are per-request rates: one is every token over every
		// request's time, the other the plain mean of each request's
		ew.printf(": all tokens over all requests' time, where per-request TPS is the mean of each request's own rate")
	}
	ew.printf(")\n")
	switch {
	case s.PeakTPS == 0:
		// a step under 2 s has no window apart from its whole: no peak
	case s.PeakWindowS > 0:
		ew.printf("Peak TPS (%g s window, widened from 1 s over this long a span): %.2f tokens/s\n", s.PeakWindowS, s.PeakTPS)
	default:
		ew.printf("Peak TPS (1 s window): %.2f tokens/s\n", s.PeakTPS)
	}
}

// latencyTable is the step's latencies, mean, percentiles and max: the
// token timings of a generating step, and every step's E2E and client lag.
func latencyTable(ew *errWriter, s *metrics.Summary) {
	var rows []namedDist
	row := func(name string, d metrics.Dist) { rows = append(rows, namedDist{name, d}) }
	if !s.Outputless {
		row("TTFT", s.TTFT)
		if s.TTST.Count > 0 {
			row("TTST", s.TTST)
		}
		row("TPOT", s.TPOT)
		row("ITL", s.ITL)
	}
	if g := s.Reasoning; g != nil {
		row("First reasoning", g.TTFR)
		row("First answer", g.TTFA)
	}
	row("E2E latency", s.E2E)
	row("Client lag", s.ClientLag)
	msTable(ew, s, rows)
}

// namedDist is a row of a table of distributions.
type namedDist struct {
	name string
	d    metrics.Dist
}

// msTable prints distributions in ms, a row each: mean, p50, p90, p99
// (or the percentiles asked for, in their place) and max.
func msTable(ew *errWriter, s *metrics.Summary, rows []namedDist) {
	tw := tabwriter.NewWriter(ew, 2, 0, 2, ' ', tabwriter.AlignRight)
	keys := percentileKeys([]metrics.Summary{*s})
	cells := func(d metrics.Dist) []string {
		if len(keys) == 0 {
			return []string{dms(d, d.P50), dms(d, d.P90), dms(d, d.P99)}
		}
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = "-"
			if v, ok := d.Percentiles[k]; ok {
				out[i] = dms(d, v)
			}
		}
		return out
	}
	heads := keys
	if len(heads) == 0 {
		heads = []string{"p50", "p90", "p99"}
	}
	fmt.Fprintf(tw, "\tmean\t%s\tmax\t\n", strings.Join(heads, "\t"))
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.name, dms(r.d, r.d.Mean), strings.Join(cells(r.d), "\t"), dms(r.d, r.d.Max))
	}
	_ = tw.Flush()
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// table is the steps side by side, one a row, with the summary view's
// figures.
func table(ew *errWriter, steps []metrics.Summary) {
	narrow, _ := summaryViews(steps)
	cols := narrow.resolve()
	tw := tabwriter.NewWriter(ew, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "step\tmodel\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.heading)
	}
	fmt.Fprintf(tw, "\n")
	for i := range steps {
		s := &steps[i]
		fmt.Fprintf(tw, "%s\t%s\t", s.Label, s.Model)
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", c.shown(s))
		}
		fmt.Fprintf(tw, "\n")
	}
	_ = tw.Flush()
	if len(steps) > 1 && steps[0].SystemTPS > 0 {
		ew.printf("\nSystem TPS against the first step:")
		for _, s := range steps[1:] {
			ew.printf(" %s %.2fx", s.Label, s.SystemTPS/steps[0].SystemTPS)
		}
		ew.printf("\n")
	}
}

func targets(ew *errWriter, steps []metrics.Summary) {
	any := false
	for _, s := range steps {
		if len(s.Targets) > 0 {
			any = true
		}
	}
	if !any {
		return
	}
	ew.printf("\nTargets:\n")
	for _, s := range steps {
		for _, v := range s.Targets {
			label := ""
			if len(steps) > 1 {
				label = s.Label + ": "
			}
			name := v.Name
			if v.UseCase != "" {
				name = fmt.Sprintf("%s (%s)", v.Name, v.UseCase)
			}
			switch {
			case v.NotMeasurable:
				why := "a non-streamed response has no TPOT"
				if s.Outputless {
					why = "a request that generates nothing has no tokens to time"
				}
				ew.printf("  %sNOT MEASURABLE %s %s %s: no completed request had this figure (%s), so it cannot be shown to hold\n",
					label, name, cmp(v), value(v.Want, v.Unit()), why)
			case v.Need > 0:
				ew.printf("  %s%s %s %s %s for %.1f%% of requests: got %s at that share, met by %.1f%%\n",
					label, passFail(v.Pass), name, cmp(v), value(v.Want, v.Unit()), v.Need*100, value(v.Got, v.Unit()), v.Met*100)
			default:
				ew.printf("  %s%s %s %s %s: got %s\n", label, passFail(v.Pass), name, cmp(v), value(v.Want, v.Unit()), value(v.Got, v.Unit()))
			}
		}
	}
}

func passFail(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}

// value prints a target's figure as the tables print it: latencies as ms
// does, rates with two decimals.
func value(v float64, unit string) string {
	if unit == "ms" {
		return ms(v)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

func cmp(v metrics.Verdict) string {
	if v.Unit() == "ms" {
		return "at most"
	}
	return "at least"
}

// dms prints a figure v of distribution d as ms does, or "-" when d has
// no samples: a figure not measured is absent, never 0.
func dms(d metrics.Dist, v float64) string {
	if d.Count == 0 {
		return "-"
	}
	return ms(v)
}

// ms prints milliseconds readably.
func ms(v float64) string {
	switch {
	case v >= 10000:
		return fmt.Sprintf("%.2f s", v/1e3)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 1:
		return fmt.Sprintf("%.2f ms", v)
	default:
		return fmt.Sprintf("%.3f ms", v)
	}
}

var conventionNote = map[string]string{
	"vllm":       "ITL is the gap between chunks, whatever they carry",
	"guidellm":   "TPOT is (last token - sent) / tokens, first token included; ITL is each request's TPOT",
	"genai-perf": "no TPOT; ITL is each request's (last - first) / (tokens - 1)",
}

// ratio formats the figure of s against base's ("-" when either has
// none).
func (c viewColumn) ratio(s, base *metrics.Summary) string {
	v, ok1 := c.num(s)
	b, ok2 := c.num(base)
	if !ok1 || !ok2 || b == 0 || v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", v/b)
}

// ratios prints every step's figures as multiples of the first step's.
func ratios(ew *errWriter, steps []metrics.Summary) {
	ew.printf("\nAgainst %s:\n", steps[0].Label)
	tw := tabwriter.NewWriter(ew, 2, 0, 2, ' ', tabwriter.AlignRight)
	cols := ratioViewOf(steps).resolve()
	fmt.Fprintf(tw, "step\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.heading)
	}
	fmt.Fprintf(tw, "\n")
	for i := range steps {
		fmt.Fprintf(tw, "%s\t", steps[i].Label)
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", c.ratio(&steps[i], &steps[0]))
		}
		fmt.Fprintf(tw, "\n")
	}
	_ = tw.Flush()
}

// requests is "1 request" or "n requests".
func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}
