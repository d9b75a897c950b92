package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/metrics"
)

//go:embed assets/uPlot.iife.min.js
var uplotJS string

//go:embed assets/uPlot.min.css
var uplotCSS string

//go:embed assets/uPlot.LICENSE
var uplotLicense string

//go:embed html.tmpl
var htmlTemplate string

var page = template.Must(template.New("report").Parse(htmlTemplate))

// maxPoints bounds every drawn series.
const maxPoints = 1500

// chart is one uPlot chart: a shared x array and series over it (null
// where a series has no point).
type chart struct {
	ID     string        `json:"id"`
	Title  string        `json:"title"`
	XLabel string        `json:"xLabel"`
	YLabel string        `json:"yLabel"`
	Y2     string        `json:"y2Label,omitempty"` // second axis, for series marked axis 2
	X      []float64     `json:"x"`
	Series []chartSeries `json:"series"`
	// LogX draws the x axis logarithmic: a latency CDF whose tail lies
	// far past its body (one 450 ms ITL squeezed 20 ms ones into the
	// left edge).
	LogX bool `json:"logX,omitempty"`
	// FromZero starts the y axes at 0: a flat 47.1 tokens/s drawn on an
	// auto-scaled axis read as a zig-zag between 47.08 and 47.13.
	FromZero bool `json:"fromZero,omitempty"`
	// Share fixes the y axis to 0-1 (a CDF's share of samples).
	Share bool `json:"share,omitempty"`
}

type chartSeries struct {
	Label  string     `json:"label"`
	Y      []*float64 `json:"y"`
	Axis2  bool       `json:"axis2,omitempty"`
	Points bool       `json:"points,omitempty"` // marks, not a line
}

// HTML writes the report as one self-contained page: summary table,
// charts drawn by uPlot (inlined), and run metadata. It needs no network.
func HTML(w io.Writer, r *Report) error {
	data := struct {
		Meta   map[string]string `json:"meta"`
		Charts []chart           `json:"charts"`
	}{Meta: meta(r), Charts: charts(r.Steps)}
	js, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encoding chart data: %w", err)
	}
	var rows []tableRow
	var notesText bytes.Buffer // what the text report notes: failures, sources, reasoning, replay
	_, wide := summaryViews(r.Steps)
	for i := range r.Steps {
		rows = append(rows, row(&r.Steps[i], wide))
		notes(&errWriter{w: &notesText}, &r.Steps[i], len(r.Steps) > 1)
	}
	// a note a list item; a line indented under one (a failure's
	// reason) is its own item, marked as belonging to the one before
	var noteItems []noteItem
	for _, line := range strings.Split(strings.TrimRight(notesText.String(), "\n"), "\n") {
		if line != "" {
			noteItems = append(noteItems, noteItem{Text: strings.TrimSpace(line), Sub: strings.HasPrefix(line, "  ")})
		}
	}
	var ratioHead []string
	var ratioRows [][]string
	if r.Compare && len(r.Steps) > 1 {
		ratioCols := ratioViewOf(r.Steps).resolve()
		for _, c := range ratioCols {
			ratioHead = append(ratioHead, c.heading)
		}
		for i := range r.Steps {
			cells := []string{r.Steps[i].Label}
			for _, c := range ratioCols {
				cells = append(cells, c.ratio(&r.Steps[i], &r.Steps[0]))
			}
			ratioRows = append(ratioRows, cells)
		}
	}
	var summaryHead []string
	for _, c := range wide.resolve() {
		summaryHead = append(summaryHead, c.heading)
	}
	return page.Execute(w, map[string]any{
		"SummaryHead": summaryHead, "NoteItems": noteItems, "RatioHead": ratioHead, "RatioRows": ratioRows, "Base": firstLabel(r.Steps),
		"Report": r, "Meta": data.Meta, "Rows": rows, "Data": template.JS(js),
		"UPlotJS": template.JS(uplotJS), "UPlotCSS": template.CSS(uplotCSS), "License": uplotLicense,
		"Charts": data.Charts, "PhaseRows": phaseRows(r.Steps),
	})
}

func meta(r *Report) map[string]string {
	m := map[string]string{
		"tpsbench": r.Version,
		"machine":  fmt.Sprintf("%s/%s, %d CPUs (of the machine rendering the report)", runtime.GOOS, runtime.GOARCH, runtime.NumCPU()),
	}
	var start int64
	urls, models := map[string]bool{}, map[string]bool{}
	for _, s := range r.Steps {
		if s.Start > 0 && (start == 0 || s.Start < start) {
			start = s.Start
		}
		urls[s.URL], models[s.Model] = true, true
	}
	if start > 0 {
		m["start"] = time.Unix(0, start).UTC().Format(time.RFC3339)
	}
	if len(r.Sent) > 0 {
		m["sent with every request"] = sentLine(r.Sent)
	}
	m["url"] = joinKeys(urls)
	m["model"] = joinKeys(models)
	var prof []string
	for _, s := range r.Steps {
		p := fmt.Sprintf("%s: concurrency %d", s.Label, s.Concurrency)
		if s.Rate > 0 {
			p += fmt.Sprintf(", rate %.3g/s", s.Rate)
		}
		prof = append(prof, p)
	}
	m["profile"] = joinList(prof)
	return m
}

func joinKeys(set map[string]bool) string {
	var ks []string
	for k := range set {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return joinList(ks)
}

func joinList(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

// noteItem is a line of the notes the text report prints.
type noteItem struct {
	Text string
	Sub  bool
}

func firstLabel(steps []metrics.Summary) string {
	if len(steps) == 0 {
		return ""
	}
	return steps[0].Label
}

// tableRow is a step's line in the summary table; Values carry the exact
// figures (data-value) so that a test can compare them with the JSON.
type tableRow struct {
	Label, Model, Targets string
	Cells                 []cell
	Pass                  bool
	HasTargets            bool
}

type cell struct {
	Key, Text string
	Value     float64
}

func row(s *metrics.Summary, v view) tableRow {
	r := tableRow{Label: s.Label, Model: s.Model, Pass: true, HasTargets: len(s.Targets) > 0}
	for _, c := range v.resolve() {
		v, _ := c.num(s) // an absent figure's value is 0, shown as "-"
		r.Cells = append(r.Cells, cell{Key: c.name, Text: c.shown(s), Value: v})
	}
	for _, v := range s.Targets {
		mark := "pass"
		if !v.Pass {
			mark, r.Pass = "FAIL", false
		}
		r.Targets += fmt.Sprintf("%s %s (%.2f); ", v.Name, mark, v.Got)
	}
	return r
}

func f(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// charts builds every chart the steps call for.
func charts(steps []metrics.Summary) []chart {
	var out []chart
	if axis, ok := sweepAxis(steps); ok {
		out = append(out, sweepCharts(steps, axis)...)
	}
	if c, ok := paretoChart(steps); ok {
		out = append(out, c)
	}
	for _, d := range []struct {
		key, title, unit string
		dist             func(metrics.Summary) metrics.Dist // the figure's, for its sample count
	}{
		{"ttft_ms", "TTFT", "ms", func(s metrics.Summary) metrics.Dist { return s.TTFT }},
		{"ttst_ms", "Time to second token", "ms", func(s metrics.Summary) metrics.Dist { return s.TTST }},
		{"tpot_ms", "TPOT", "ms", func(s metrics.Summary) metrics.Dist { return s.TPOT }},
		{"itl_ms", "Inter-token latency", "ms", func(s metrics.Summary) metrics.Dist { return s.ITL }},
		{"e2e_ms", "E2E latency", "ms", func(s metrics.Summary) metrics.Dist { return s.E2E }},
		{"request_tps", "Request TPS", "tokens/s", func(s metrics.Summary) metrics.Dist { return s.RequestTPS }},
	} {
		if c, ok := cdfChart(steps, d.key, d.title, d.unit, d.dist); ok {
			out = append(out, c)
		}
	}
	if c, ok := rollingChart(steps); ok {
		out = append(out, c)
	}
	if len(steps) == 1 && steps[0].Charts != nil && len(steps[0].Charts.Tokens) > 1 {
		tk := steps[0].Charts.Tokens
		var x []float64
		var cum, inst []*float64
		for i, p := range tk {
			x = append(x, p.MS)
			cum = append(cum, f(float64(p.Cumulative)))
			if i == 0 {
				inst = append(inst, nil)
			} else {
				inst = append(inst, f(p.InstantTPS))
			}
		}
		// a single request's page opens with its stream, the one chart
		// that has more than a point of it
		out = append([]chart{{ID: "stream", Title: "The stream token by token: instant TPS (1/ITL) and cumulative tokens", XLabel: "ms after the request was sent", YLabel: "instant tokens/s", Y2: "tokens so far", X: x, FromZero: true,
			Series: []chartSeries{{Label: "instant TPS", Y: inst, Points: true}, {Label: "cumulative tokens", Y: cum, Axis2: true}}}}, out...)
	}
	return out
}

// allOutputless tells whether every step's requests generated nothing.
func allOutputless(steps []metrics.Summary) bool {
	for _, s := range steps {
		if !s.Outputless {
			return false
		}
	}
	return len(steps) > 0
}

// paretoChart sets each step's system TPS against its mean per-request
// TPS, the trade-off a batch size or a server's configuration makes, and
// draws the Pareto front through the steps no other beats on both.
func paretoChart(steps []metrics.Summary) (chart, bool) {
	var measured []metrics.Summary
	for _, s := range steps {
		if s.SystemTPS > 0 && s.RequestTPS.Mean > 0 {
			measured = append(measured, s)
		}
	}
	if len(measured) < 2 {
		return chart{}, false
	}
	sort.SliceStable(measured, func(i, j int) bool { return measured[i].RequestTPS.Mean < measured[j].RequestTPS.Mean })
	x, sys := make([]float64, len(measured)), make([]float64, len(measured))
	all, front := make([]*float64, len(measured)), make([]*float64, len(measured))
	for i, s := range measured {
		x[i], sys[i], all[i] = s.RequestTPS.Mean, s.SystemTPS, f(s.SystemTPS)
	}
	for i, on := range metrics.ParetoFront(x, sys) {
		if on {
			front[i] = f(sys[i])
		}
	}
	return chart{ID: "pareto", Title: "System TPS against per-request TPS: the Pareto front", XLabel: "per-request tokens/s (mean)", YLabel: "system tokens/s", X: x, FromZero: true,
		Series: []chartSeries{{Label: "steps", Y: all, Points: true}, {Label: "Pareto front", Y: front}}}, true
}

func cdfChart(steps []metrics.Summary, key, title, unit string, dist func(metrics.Summary) metrics.Dist) (chart, bool) {
	var xs, ys [][]float64
	var labels []string
	for _, s := range steps {
		if s.Charts == nil || len(s.Charts.CDF[key]) == 0 || dist(s).Count < 2 {
			continue // one sample is no distribution: a point at share 1
		}
		var x, y []float64
		for _, p := range s.Charts.CDF[key] {
			x, y = append(x, p.X), append(y, p.V)
		}
		xs, ys, labels = append(xs, x), append(ys, y), append(labels, s.Label)
	}
	if len(xs) == 0 {
		return chart{}, false
	}
	x, series := merged(xs, ys)
	c := chart{ID: "cdf-" + key, Title: title + " distribution (CDF)", XLabel: unit, YLabel: "share of samples", X: x, Share: true, LogX: longTail(x)}
	for i, l := range labels {
		c.Series = append(c.Series, chartSeries{Label: l, Y: series[i]})
	}
	return c, true
}

// longTail tells an x axis whose largest value lies over 10 times past
// its median, all of them positive: drawn linear, the body of the
// distribution would be squeezed into the left edge.
func longTail(x []float64) bool {
	if len(x) < 2 || x[0] <= 0 { // x ascends
		return false
	}
	return x[len(x)-1] > 10*x[len(x)/2]
}

func rollingChart(steps []metrics.Summary) (chart, bool) {
	var origin int64
	for _, s := range steps {
		if s.Start > 0 && (origin == 0 || s.Start < origin) {
			origin = s.Start
		}
	}
	var xs, ys [][]float64
	var series []chartSeries
	for _, s := range steps {
		if s.Charts == nil {
			continue
		}
		for _, w := range []struct {
			name string
			pts  []metrics.Point
		}{{windowName(1, s.PeakWindowS), s.Charts.Rolling1s}, {windowName(60, s.PeakWindow60S), s.Charts.Rolling60s}} {
			if len(w.pts) == 0 {
				continue
			}
			var x, y []float64
			for _, p := range w.pts {
				x, y = append(x, float64(p.T-origin)/1e9), append(y, p.V)
			}
			x, y = lttb(x, y, maxPoints)
			xs, ys = append(xs, x), append(ys, y)
			series = append(series, chartSeries{Label: s.Label + " TPS over " + w.name})
		}
		if len(s.Charts.Failures) > 0 {
			var x, y []float64
			for i, t := range s.Charts.Failures {
				if i >= maxPoints {
					break
				}
				x, y = append(x, float64(t-origin)/1e9), append(y, 0)
			}
			xs, ys = append(xs, x), append(ys, y)
			series = append(series, chartSeries{Label: s.Label + " failures", Points: true})
		}
	}
	if len(xs) == 0 {
		return chart{}, false
	}
	x, merged := merged(xs, ys)
	c := chart{ID: "rolling", Title: "Rolling TPS over the run (failures marked at 0)", XLabel: "seconds from the start", YLabel: "tokens/s", X: x, FromZero: true}
	for i := range series {
		series[i].Y = merged[i]
		c.Series = append(c.Series, series[i])
	}
	return c, true
}

// windowName names a rolling window of want seconds, widened to got when
// got is set (long spans are binned coarser).
func windowName(want, got float64) string {
	if got > 0 {
		return fmt.Sprintf("%g s", got)
	}
	return fmt.Sprintf("%g s", want)
}

// phaseRows are the HTML table of each step's HTTP phases: step, phase,
// mean, p50, p90, p99, max in ms, and the step's requests and reused
// connections on its first row.
func phaseRows(steps []metrics.Summary) [][]string {
	var rows [][]string
	for i := range steps {
		p := steps[i].HTTP
		if p == nil {
			continue
		}
		first := true
		p.Each(func(name string, d *metrics.Dist) {
			counts := []string{"", ""}
			if first {
				counts = []string{strconv.Itoa(p.Requests), fmt.Sprintf("%d (%.0f%%)", p.Reused, 100*p.ReusedShare())}
			}
			first = false
			rows = append(rows, append([]string{steps[i].Label, "http_req_" + name,
				dms(*d, d.Mean), dms(*d, d.P50), dms(*d, d.P90), dms(*d, d.P99), dms(*d, d.Max)}, counts...))
		})
	}
	return rows
}
