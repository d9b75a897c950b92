package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestPercentilesInEveryFormat: --percentiles 75,99.99 reports those of
// every distribution: in JSON (the median asked for again is the p50
// beside it), as CSV and Markdown columns, and as the text table's
// columns; a report of the records takes the flag too. A percentile out
// of range is refused.
func TestPercentilesInEveryFormat(t *testing.T) {
	srv := server(t)
	recs := filepath.Join(t.TempDir(), "r.jsonl")
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--requests", "8", "--concurrency", "4",
		"--percentiles", "50,75,99.99", "--format", "json", "--records", recs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Steps []struct {
			TTFT struct {
				P50         float64            `json:"p50"`
				Max         float64            `json:"max"`
				Percentiles map[string]float64 `json:"percentiles"`
			} `json:"ttft_ms"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Steps[0].TTFT.Percentiles
	if len(p) != 3 || p["p50"] != rep.Steps[0].TTFT.P50 || !(p["p75"] >= p["p50"] && p["p99.99"] >= p["p75"]) || math.Abs(p["p99.99"]-rep.Steps[0].TTFT.Max) > 1e-9*rep.Steps[0].TTFT.Max+0.01 {
		t.Errorf("TTFT percentiles %v (p50 %v, max %v)", p, rep.Steps[0].TTFT.P50, rep.Steps[0].TTFT.Max)
	}
	for format, want := range map[string]string{"csv": "ttft_ms_p75,ttft_ms_p99.99", "markdown": "| p75 | p99.99 |", "text": "mean   p50   p75  p99.99"} {
		_, got, _ := cli(t, "report", recs, "--percentiles", "50,75,99.99", "--format", format)
		if !strings.Contains(strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("%s report lacks %q:\n%s", format, want, got)
		}
	}
	for _, bad := range []string{"0", "101", "50,abc", "90,90"} {
		if code, _, errs := cli(t, "report", recs, "--percentiles", bad); code != exitUsage || !strings.Contains(errs, "--percentiles") {
			t.Errorf("--percentiles %s: exit %d %s", bad, code, errs)
		}
	}
}
