package main

import (
	"encoding/json"
	"testing"
)

// TestSweepRates: one open-loop step a rate, labelled by it, each sending
// its requests at that rate, capped by --concurrency when given.
func TestSweepRates(t *testing.T) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--sweep-rates", "20,100", "--requests", "10", "--max-tokens", "4", "--format", "json", "-q")
	var rep struct {
		Steps []struct {
			Label       string  `json:"label"`
			Rate        float64 `json:"rate"`
			Concurrency int     `json:"concurrency"`
			Requests    struct{ Completed int }
		} `json:"steps"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Steps) != 2 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for i, want := range []struct {
		label string
		rate  float64
	}{{"r=20/s", 20}, {"r=100/s", 100}} {
		s := rep.Steps[i]
		if s.Label != want.label || s.Rate != want.rate || s.Concurrency != 0 || s.Requests.Completed != 10 {
			t.Errorf("step %d: %+v, want %s open loop", i, s, want.label)
		}
	}
	for _, bad := range [][]string{
		{"--sweep-rates", "1,x", "--requests", "2"},
		{"--sweep-rates", "0", "--requests", "2"},
		{"--sweep-rates", "1,2"}, // neither --requests nor --duration
		{"--sweep-rates", "1,2", "--sweep", "1,2", "--requests", "2"},
		{"--sweep-rates", "1,2", "--rate", "3", "--requests", "2"},
	} {
		if code, _, errs := cli(t, append([]string{"run", "--url", srv.URL, "--model", "m"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, %q", bad, code, errs)
		}
	}
}
