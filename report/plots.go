package report

import (
	"fmt"
	"sort"

	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/plot"
)

// PlotRun is one run's steps, named in the charts (a records file's
// name, when several runs are compared).
type PlotRun struct {
	Name  string
	Steps []metrics.Summary
}

// Plot is one chart of a run, with the file name it is written under.
type Plot struct {
	File  string
	Chart plot.Chart
}

// Plots are the charts AIPerf's plot command draws, from the steps'
// figures alone: TTFT and ITL against the load (p50 and p99, a series
// each a run), system TPS against per-request TPS with each run's Pareto
// front, each step's rolling TPS over its time, and each session's turns
// as lanes. Several runs are compared in each chart; a chart with
// nothing to show (one load level, no sessions) is left out.
func Plots(runs []PlotRun) []Plot {
	var out []Plot
	name := func(run PlotRun, what string) string {
		if len(runs) == 1 {
			return what
		}
		return run.Name + " " + what
	}
	xLabel, load := loadAxis(runs)
	for _, fig := range []struct {
		file, title string
		dist        func(s *metrics.Summary) metrics.Dist
	}{
		{"ttft.png", "Time to first token against load", func(s *metrics.Summary) metrics.Dist { return s.TTFT }},
		{"itl.png", "Inter-token latency against load", func(s *metrics.Summary) metrics.Dist { return s.ITL }},
	} {
		c := plot.Chart{Title: fig.title, XLabel: xLabel, YLabel: "ms", LogX: true}
		for _, run := range runs {
			var p50, p99 []plot.Point
			for i := range run.Steps {
				s := &run.Steps[i]
				if d := fig.dist(s); d.Count > 0 && load(s) > 0 {
					p50, p99 = append(p50, plot.Point{X: load(s), Y: d.P50}), append(p99, plot.Point{X: load(s), Y: d.P99})
				}
			}
			c.Series = append(c.Series, plot.Series{Name: name(run, "p50"), Points: byX(p50)}, plot.Series{Name: name(run, "p99"), Points: byX(p99)})
		}
		if levels(c) > 1 {
			out = append(out, Plot{fig.file, c})
		}
	}
	pareto := plot.Chart{Title: "Throughput against interactivity", XLabel: "per-request TPS (tokens/s a user sees)", YLabel: "system TPS (tokens/s)"}
	for _, run := range runs {
		var xs, ys []float64
		var all []plot.Point
		for i := range run.Steps {
			if s := &run.Steps[i]; !s.Outputless && s.SystemTPS > 0 {
				xs, ys = append(xs, s.RequestTPS.Mean), append(ys, s.SystemTPS)
				all = append(all, plot.Point{X: s.RequestTPS.Mean, Y: s.SystemTPS})
			}
		}
		var front []plot.Point
		for i, on := range metrics.ParetoFront(xs, ys) {
			if on {
				front = append(front, all[i])
			}
		}
		pareto.Series = append(pareto.Series, plot.Series{Name: name(run, "steps"), Points: all, Marks: true},
			plot.Series{Name: name(run, "Pareto front"), Points: byX(front)})
	}
	if levels(pareto) > 1 {
		out = append(out, Plot{"pareto.png", pareto})
	}
	timeline := plot.Chart{Title: "Rolling TPS (1 s window) over each step", XLabel: "s since the step's start", YLabel: "tokens/s"}
	lanes := plot.Chart{Title: "Sessions: each turn from its send to its end", XLabel: "s since the first turn"}
	for _, run := range runs {
		for i := range run.Steps {
			s := &run.Steps[i]
			if ch := s.Charts; ch != nil && len(ch.Rolling1s) > 1 {
				var pts []plot.Point
				for _, p := range ch.Rolling1s {
					pts = append(pts, plot.Point{X: float64(p.T-ch.Rolling1s[0].T) / 1e9, Y: p.V})
				}
				timeline.Series = append(timeline.Series, plot.Series{Name: name(run, s.Label), Points: pts})
			}
			if v := s.Sessions; v != nil {
				for _, ln := range v.Lanes {
					lanes.Lanes = append(lanes.Lanes, plot.Lane{Name: name(run, fmt.Sprintf("%s #%d", s.Label, ln.Session)), Spans: ln.Turns})
				}
			}
		}
	}
	if len(timeline.Series) > 0 {
		out = append(out, Plot{"timeline.png", timeline})
	}
	if len(lanes.Lanes) > 0 {
		out = append(out, Plot{"sessions.png", lanes})
	}
	return out
}

// loadAxis is what the steps' load is measured by: their concurrency
// when every step has one, else the rate their requests went out at.
func loadAxis(runs []PlotRun) (string, func(s *metrics.Summary) float64) {
	for _, run := range runs {
		for i := range run.Steps {
			if run.Steps[i].Concurrency <= 0 {
				return "request rate (requests/s)", func(s *metrics.Summary) float64 {
					if s.AchievedRate > 0 {
						return s.AchievedRate
					}
					return s.Rate
				}
			}
		}
	}
	return "concurrency", func(s *metrics.Summary) float64 { return float64(s.Concurrency) }
}

// byX is pts in the order of their x, as a line is drawn.
func byX(pts []plot.Point) []plot.Point {
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	return pts
}

// levels counts the distinct places on the x axis a chart's series have.
func levels(c plot.Chart) int {
	seen := map[float64]bool{}
	for _, s := range c.Series {
		for _, p := range s.Points {
			seen[p.X] = true
		}
	}
	return len(seen)
}
