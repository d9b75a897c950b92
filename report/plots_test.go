package report

import (
	"testing"

	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/plot"
)

// TestPlotsOfARun: the fixture's three concurrency steps give TTFT and
// ITL against concurrency (a p50 and a p99 series, a point a step, at
// the steps' own figures), throughput against interactivity with its
// front, and the steps' rolling TPS; two runs compared name their series
// by run.
func TestPlotsOfARun(t *testing.T) {
	steps := fixture().Steps
	byFile := map[string]plot.Chart{}
	for _, p := range Plots([]PlotRun{{Name: "a", Steps: steps}}) {
		byFile[p.File] = p.Chart
	}
	for _, f := range []string{"ttft.png", "itl.png", "pareto.png", "timeline.png"} {
		if _, ok := byFile[f]; !ok {
			t.Errorf("no %s among %v", f, byFile)
		}
	}
	ttft := byFile["ttft.png"]
	if len(ttft.Series) != 2 || ttft.Series[0].Name != "p50" || ttft.XLabel != "concurrency" || !ttft.LogX {
		t.Fatalf("TTFT chart %+v", ttft)
	}
	for i, s := range steps {
		p50, p99 := ttft.Series[0].Points[i], ttft.Series[1].Points[i]
		if p50.X != float64(s.Concurrency) || p50.Y != s.TTFT.P50 || p99.Y != s.TTFT.P99 {
			t.Errorf("step %s drawn at p50 %v, p99 %v; its TTFT %v, %v at c=%d", s.Label, p50, p99, s.TTFT.P50, s.TTFT.P99, s.Concurrency)
		}
	}
	pareto := byFile["pareto.png"]
	if len(pareto.Series[0].Points) != len(steps) || len(pareto.Series[1].Points) == 0 {
		t.Errorf("pareto chart %+v", pareto.Series)
	}
	if got := len(byFile["timeline.png"].Series); got != len(steps) {
		t.Errorf("%d rolling series, want one a step", got)
	}
	two := Plots([]PlotRun{{Name: "before", Steps: steps}, {Name: "after", Steps: steps}})
	if s := two[0].Chart.Series; len(s) != 4 || s[0].Name != "before p50" || s[2].Name != "after p50" {
		t.Errorf("compared series %+v", s)
	}
}

// TestPlotsLeftOut: one load level draws no chart against load, a step
// without sessions no lanes; sessions draw a lane each.
func TestPlotsLeftOut(t *testing.T) {
	one := fixture().Steps[:1]
	for _, p := range Plots([]PlotRun{{Name: "a", Steps: one}}) {
		if p.File == "ttft.png" || p.File == "itl.png" || p.File == "pareto.png" || p.File == "sessions.png" {
			t.Errorf("%s drawn from one step without sessions", p.File)
		}
	}
	one[0].Sessions = &metrics.Sessions{Sessions: 2, Lanes: []metrics.SessionLane{{Session: 1, Turns: [][2]float64{{0, 1}, {2, 3}}}, {Session: 2, Turns: [][2]float64{{0.5, 2}}}}}
	found := false
	for _, p := range Plots([]PlotRun{{Name: "a", Steps: one}}) {
		if p.File == "sessions.png" {
			found = len(p.Chart.Lanes) == 2 && p.Chart.Lanes[0].Spans[1] == [2]float64{2, 3}
		}
	}
	if !found {
		t.Error("no lanes of the sessions")
	}
}
