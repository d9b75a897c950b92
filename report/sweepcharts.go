package report

import (
	"sort"
	"strings"

	"github.com/tpsbench/tpsbench/metrics"
)

// sweepCharts set the steps' figures against the axis they sweep: TPS
// and latency, or for steps that generate nothing inputs and requests a
// second and E2E latency. Each target (a model on a server) is a line of
// its own: one line through every step joined one model's last level back
// to the next model's first.
func sweepCharts(steps []metrics.Summary, a axis) []chart {
	type figure struct {
		label string
		of    func(metrics.Summary) float64
		axis2 bool
	}
	each := func(id, title, yLabel, y2 string, figs []figure) chart {
		groups := byTarget(steps)
		var xs, ys [][]float64
		var series []chartSeries
		for _, g := range groups {
			// uPlot wants x ascending; an automatic rate sweep runs its
			// throughput step second, though it stands last
			sort.SliceStable(g.steps, func(i, j int) bool { return a.of(g.steps[i]) < a.of(g.steps[j]) })
			for _, fig := range figs {
				x, y := make([]float64, len(g.steps)), make([]float64, len(g.steps))
				for i, st := range g.steps {
					x[i], y[i] = a.of(st), fig.of(st)
				}
				xs, ys = append(xs, x), append(ys, y)
				label := fig.label
				if len(groups) > 1 {
					label += " (" + g.name + ")"
				}
				series = append(series, chartSeries{Label: label, Axis2: fig.axis2})
			}
		}
		x, merged := merged(xs, ys)
		for i := range series {
			series[i].Y = merged[i]
		}
		return chart{ID: id, Title: title + " against " + a.name, XLabel: a.label, YLabel: yLabel, Y2: y2, X: x, FromZero: true, Series: series}
	}
	if allOutputless(steps) {
		return []chart{
			each("sweep", "Inputs and requests a second", "inputs/s", "requests/s", []figure{
				{"inputs/s", func(s metrics.Summary) float64 { return s.InputsPerSecond }, false},
				{"requests/s", func(s metrics.Summary) float64 { return s.RequestThroughput }, true}}),
			each("latency", "E2E latency", "ms", "", []figure{
				{"E2E p50", func(s metrics.Summary) float64 { return s.E2E.P50 }, false},
				{"E2E p99", func(s metrics.Summary) float64 { return s.E2E.P99 }, false}}),
		}
	}
	return []chart{
		each("sweep", "System TPS and per-request TPS", "system tokens/s", "per-request tokens/s", []figure{
			{"system TPS", func(s metrics.Summary) float64 { return s.SystemTPS }, false},
			{"per-request TPS", func(s metrics.Summary) float64 { return s.RequestTPS.Mean }, true}}),
		each("latency", "TTFT and TPOT", "ms", "", []figure{
			{"TTFT p50", func(s metrics.Summary) float64 { return s.TTFT.P50 }, false},
			{"TTFT p99", func(s metrics.Summary) float64 { return s.TTFT.P99 }, false},
			{"TPOT p50", func(s metrics.Summary) float64 { return s.TPOT.P50 }, false},
			{"TPOT p99", func(s metrics.Summary) float64 { return s.TPOT.P99 }, false}}),
	}
}

// target is the steps of one model on one server, in the order they ran.
type target struct {
	name  string
	steps []metrics.Summary
}

// byTarget groups steps by their model and server, in the order each
// first ran; a target's name is its model, with its server when two
// servers serve one model name.
func byTarget(steps []metrics.Summary) []target {
	var out []target
	at := map[[2]string]int{}
	models := map[string]map[string]bool{}
	for _, s := range steps {
		key := [2]string{s.Model, s.URL}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, target{})
			if models[s.Model] == nil {
				models[s.Model] = map[string]bool{}
			}
			models[s.Model][s.URL] = true
		}
		out[i].steps = append(out[i].steps, s)
	}
	for key, i := range at {
		out[i].name = key[0]
		if len(models[key[0]]) > 1 || key[0] == "" {
			out[i].name = strings.TrimSpace(key[0] + " " + key[1])
		}
	}
	return out
}

// axis is what a sweep's steps differ in: what each step asked for, and
// where the step stands on the charts.
type axis struct {
	name, label string
	asked, of   func(metrics.Summary) float64
}

func concurrencyOf(s metrics.Summary) float64 { return float64(s.Concurrency) }

var (
	concurrencyAxis = axis{"concurrency", "concurrency", concurrencyOf, concurrencyOf}
	// a rate sweep plots against what the server completed, where the
	// closed-loop anchors of an automatic sweep also have their place
	rateAxis = axis{"request rate", "requests/s completed",
		func(s metrics.Summary) float64 { return s.Rate },
		func(s metrics.Summary) float64 { return s.RequestThroughput }}
)

// sweepAxis is the axis the steps sweep, if they sweep one: the request
// rate when the asked rates differ (a rate sweep may cap concurrency
// alike), else concurrency.
func sweepAxis(steps []metrics.Summary) (axis, bool) {
	if len(steps) < 2 {
		return axis{}, false
	}
	for _, a := range []axis{rateAxis, concurrencyAxis} {
		for _, s := range steps[1:] {
			if a.asked(s) != a.asked(steps[0]) {
				return a, true
			}
		}
	}
	return axis{}, false
}

// merged lays several (x, y) series over the union of their x values.
func merged(xs, ys [][]float64) ([]float64, [][]*float64) {
	seen := map[float64]bool{}
	var all []float64
	for _, x := range xs {
		for _, v := range x {
			if !seen[v] {
				seen[v] = true
				all = append(all, v)
			}
		}
	}
	sort.Float64s(all)
	idx := make(map[float64]int, len(all))
	for i, v := range all {
		idx[v] = i
	}
	out := make([][]*float64, len(xs))
	for s := range xs {
		out[s] = make([]*float64, len(all))
		for i, v := range xs[s] {
			out[s][idx[v]] = f(ys[s][i])
		}
	}
	return all, out
}
