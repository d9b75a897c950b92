package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestRampUp: --ramp-up-strategy linear from 50 to 200 requests/s over 4
// requests: each record carries the rate it went out at (50, 100, 150,
// 200), the schedule's gaps are 1 / those rates, and the scripted server
// received none before its scheduled time.
func TestRampUp(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true, TTFT: time.Millisecond})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, stdout, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "2", "--requests", "4", "--arrivals", "constant",
		"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "50", "--ramp-up-end-rps", "200", "--records", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "Load: rate ramped from 50.00 to 200.00 requests/s") {
		t.Errorf("report:\n%s", stdout)
	}
	recs := recordsOf(t, out)
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	for i, r := range recs {
		want := 50 + 50*float64(i)
		if math.Abs(r.Rate-want) > 1e-9 {
			t.Errorf("request %d at %v/s, want %v", i, r.Rate, want)
		}
		if i > 0 {
			gap := time.Duration(r.Scheduled - recs[i-1].Scheduled).Seconds()
			if math.Abs(gap-1/want) > 1e-6 {
				t.Errorf("gap before request %d: %v s, want %v", i, gap, 1/want)
			}
		}
		log, _ := srv.Log(r.ResponseID)
		if scheduled := time.Unix(0, r.Abs(r.Scheduled)); log.Received.Before(scheduled) {
			t.Errorf("request %d reached the server %v before its scheduled time", i, scheduled.Sub(log.Received))
		}
	}
}
