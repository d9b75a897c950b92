package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestRateShape: --rate-shape stages from 2 to 10/s over 1 s, then 10/s
// for 1 s, constant: the area under the rate is 16 starts after the one
// at 0, each due where the shape puts it and saying the rate of its
// moment; the step ends with the stages, with no count or duration.
func TestRateShape(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true, TTFT: time.Millisecond})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, stdout, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "2", "--arrivals", "constant",
		"--rate-shape", "stages:2,10@1s,10@1s", "--records", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "Load: rate ramped from 2.00 to 10.00 requests/s") {
		t.Errorf("report:\n%s", stdout)
	}
	recs := recordsOf(t, out)
	if len(recs) != 17 {
		t.Fatalf("%d records, want 17", len(recs))
	}
	for k, r := range recs {
		// the k-th start where 2t + 4t^2 = k in the first second, else
		// at 1 + (k-6)/10 s
		at, rate := (-2+math.Sqrt(4+16*float64(k)))/8, 0.0
		rate = 2 + 8*at
		if k > 6 {
			at, rate = 1+float64(k-6)/10, 10
		}
		if got := time.Duration(r.Scheduled - recs[0].Scheduled).Seconds(); math.Abs(got-at) > 1e-6 || math.Abs(r.Rate-rate) > 1e-6 {
			t.Errorf("request %d due at %v s, %v/s; want %v s, %v/s", k, got, r.Rate, at, rate)
		}
	}
}

// TestRateShapeRefused: an unknown shape, a spec its shape refuses, and
// the flags that set a rate too are usage errors naming the flag.
func TestRateShapeRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--rate-shape", "zigzag:1"}, "stages:"},
		{[]string{"--rate-shape", "stages:1,oops"}, "--rate-shape stages:1,oops: stage"},
		{[]string{"--rate-shape", "stages:5@1s", "--rate", "4", "--requests", "3"}, "not with --rate"},
		{[]string{"--rate-shape", "stages:5@1s", "--ramp-up-duration", "1s"}, "not with --ramp-up-duration"},
		{[]string{"--rate-shape", "stages:5@1s", "--arrivals", "gamma", "--burstiness", "-1"}, "burstiness"},
	} {
		code, _, errs := cli(t, append([]string{"run", "--url", "http://127.0.0.1:1"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.says) {
			t.Errorf("%v: exit %d, %q; want %d saying %q", c.args, code, errs, exitUsage, c.says)
		}
	}
}
