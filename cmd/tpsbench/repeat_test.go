package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/metrics"
)

// TestRepeat: --repeat 3 runs the plan three times: the report has each
// run's steps, and each step's figures across the runs, whose mean is the
// mean of the runs' own; the text says the interval. The server received
// every run's requests.
func TestRepeat(t *testing.T) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "3", "--requests", "4", "--sweep", "1,2",
		"--repeat", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := srv.Requests(); n < 3*2*4 {
		t.Errorf("the server received %d requests, want at least %d", n, 3*2*4)
	}
	var rep struct {
		Steps []struct {
			Label     string  `json:"label"`
			SystemTPS float64 `json:"system_tps"`
		} `json:"steps"`
		Repeats []struct {
			Label   string `json:"label"`
			Runs    int    `json:"runs"`
			Figures map[string]struct {
				Mean   float64   `json:"mean"`
				Low    float64   `json:"ci95_low"`
				High   float64   `json:"ci95_high"`
				Values []float64 `json:"values"`
			} `json:"figures"`
		} `json:"repeats"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 6 || len(rep.Repeats) != 2 {
		t.Fatalf("%d steps and %d repeats", len(rep.Steps), len(rep.Repeats))
	}
	for _, r := range rep.Repeats {
		sum, n := 0.0, 0
		for _, s := range rep.Steps {
			if strings.HasPrefix(s.Label, r.Label+" (run ") {
				sum += s.SystemTPS
				n++
			}
		}
		iv := r.Figures["system_tps"]
		if r.Runs != 3 || n != 3 || math.Abs(iv.Mean-sum/3) > 1e-9*sum || !(iv.Low <= iv.Mean && iv.Mean <= iv.High) || len(iv.Values) != 3 {
			t.Errorf("%s: %d runs, system TPS %+v; the steps' mean %v of %d", r.Label, r.Runs, iv, sum/3, n)
		}
	}
	_, text, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "3", "--requests", "2", "--repeat", "2", "-q")
	if !strings.Contains(text, "Across 2 runs (mean [95% confidence interval]):") || !strings.Contains(text, "system TPS") {
		t.Errorf("text report:\n%s", text)
	}
	// a search repeats each probe: every run a step, each probe's figures
	// across its runs, a target held only where every run held it
	code, out, errs = cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "3", "--requests", "2", "--repeat", "2",
		"--search-space", "concurrency:1,2", "--slo", "ttft=1s", "--format", "json", "-q")
	var searched struct {
		Steps   []struct{ Label string } `json:"steps"`
		Repeats []metrics.Repeat         `json:"repeats"`
		Best    int                      `json:"best_concurrency"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &searched) != nil || len(searched.Steps) != 4 || len(searched.Repeats) != 2 ||
		searched.Repeats[0].Runs != 2 || searched.Best != 2 || searched.Steps[1].Label != "c=1 (run 2)" {
		t.Errorf("--repeat with a search: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--repeat", "2", "--sweep-rates", "auto", "--concurrency", "2"); code != exitUsage || !strings.Contains(errs, "--repeat") {
		t.Errorf("--repeat with --sweep-rates auto: exit %d %s", code, errs)
	}
}

// TestCompareRepeats: compare of two files of repeated runs says which
// figures differ beyond their 95% intervals: a server sending a token
// every 20 ms against one every 1 ms differs in TPOT whatever the noise.
func TestCompareRepeats(t *testing.T) {
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "fast.jsonl"), filepath.Join(dir, "slow.jsonl")}
	for i, gap := range []time.Duration{time.Millisecond, 20 * time.Millisecond} {
		srv := scripted.New(scripted.Script{Gap: gap, Usage: true})
		code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--requests", "3", "--repeat", "3", "--records", files[i], "-q")
		srv.Close()
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	code, out, errs := cli(t, "compare", files[0], files[1])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "slow m against fast m: differs beyond the 95% intervals in") || !strings.Contains(out, "tpot_p50_ms") {
		t.Errorf("compare:\n%s", out)
	}
}
