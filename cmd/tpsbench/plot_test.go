package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/plot"
	"github.com/tpsbench/tpsbench/report"
)

// TestPlotCommand: a sweep's records drawn by `tpsbench plot` are PNG
// files that decode, each step's TTFT p50 drawn where its figure maps
// to; `run --plot` draws the same charts after its report; files there
// are not replaced without --force, and records without a completed
// request have nothing to plot.
func TestPlotCommand(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	records := filepath.Join(dir, "r.jsonl")
	plots := filepath.Join(dir, "plots")
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--sweep", "1,2,4", "--requests", "4", "--max-tokens", "4",
		"--records", records, "--plot", filepath.Join(dir, "after-run"), "-q")
	if code != 0 || !strings.Contains(errs, "ttft.png") {
		t.Fatalf("run --plot: exit %d\n%s", code, errs)
	}
	code, out, errs := cli(t, "plot", records, "--dir", plots)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	steps := metrics.NewSteps(metrics.Targets{})
	if err := readRecords(records, os.Stderr, steps.Add); err != nil {
		t.Fatal(err)
	}
	var ttft plot.Chart
	for _, p := range report.Plots([]report.PlotRun{{Name: "r", Steps: steps.Summaries()}}) {
		if p.File == "ttft.png" {
			ttft = p.Chart
		}
		for _, d := range []string{plots, filepath.Join(dir, "after-run")} {
			f, err := os.Open(filepath.Join(d, p.File))
			if err != nil {
				t.Fatalf("%s not written: %v", p.File, err)
			}
			if _, err := png.Decode(f); err != nil {
				t.Errorf("%s/%s does not decode: %v", d, p.File, err)
			}
			f.Close()
		}
	}
	f, err := os.Open(filepath.Join(plots, "ttft.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, layout, err := plot.Draw(ttft)
	if err != nil {
		t.Fatal(err)
	}
	drawnIn := func(x, y, series int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		c := layout.Color(series)
		return uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(b>>8) == c.B
	}
	for _, p := range ttft.Series[0].Points {
		at := layout.Pixel(p)
		// the p99 series is drawn after it: where their points meet, its colour is on top
		p99 := layout.Pixel(ttft.Series[1].Points[0])
		for _, q := range ttft.Series[1].Points {
			if q.X == p.X {
				p99 = layout.Pixel(q)
			}
		}
		covered := p99.X == at.X && p99.Y-at.Y <= 6 && at.Y-p99.Y <= 6
		if !drawnIn(at.X, at.Y, 0) && !(covered && drawnIn(at.X, at.Y, 1)) {
			t.Errorf("TTFT p50 at c=%g (%.2f ms) not drawn at %v", p.X, p.Y, at)
		}
	}
	if code, _, errs := cli(t, "plot", records, "--dir", plots); code == 0 || !strings.Contains(errs, "--force") {
		t.Errorf("plots replaced without --force: exit %d %s", code, errs)
	}
	if code, _, errs := cli(t, "plot", records, "--dir", plots, "--force"); code != 0 {
		t.Errorf("--force: exit %d %s", code, errs)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, []byte(`{"v":3,"sent":1,"done":2,"error":{"kind":"connect","message":"refused"}}`+"\n"), 0o644)
	if code, _, errs := cli(t, "plot", empty, "--dir", filepath.Join(dir, "none")); code != exitUsage || !strings.Contains(errs, "nothing to plot") {
		t.Errorf("nothing to plot: exit %d %s", code, errs)
	}
}
