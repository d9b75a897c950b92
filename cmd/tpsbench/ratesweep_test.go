package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
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

// TestSweepRatesAuto: GuideLLM's sweep: a synchronous and a throughput
// step, then rates evenly between their request throughputs, all in one
// records file whose report has the same steps.
func TestSweepRatesAuto(t *testing.T) {
	srv := server(t)
	recs := filepath.Join(t.TempDir(), "sweep.jsonl")
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--sweep-rates", "auto:2", "--requests", "8", "--max-tokens", "4",
		"--arrivals", "constant", "--format", "json", "--records", recs, "-q")
	type step struct {
		Label       string  `json:"label"`
		Rate        float64 `json:"rate"`
		Concurrency int     `json:"concurrency"`
		Throughput  float64 `json:"request_throughput"`
		Requests    struct{ Completed int }
	}
	var rep struct {
		Steps []step `json:"steps"`
		Note  string `json:"note"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Steps) != 4 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	sync, flood := rep.Steps[0], rep.Steps[1]
	if sync.Label != "synchronous" || sync.Concurrency != 1 || flood.Label != "throughput" || flood.Concurrency != 8 {
		t.Fatalf("anchors %+v %+v", sync, flood)
	}
	// the rates, rounded to three digits, sit a third and two thirds of
	// the way from one anchor's throughput to the other's
	for i, s := range rep.Steps[2:] {
		want := sync.Throughput + (flood.Throughput-sync.Throughput)*float64(i+1)/3
		if math.Abs(s.Rate-want) > 0.005*want || s.Label != fmt.Sprintf("r=%g/s", s.Rate) || s.Concurrency != 0 || s.Requests.Completed != 8 {
			t.Errorf("rate step %d: %+v, want a rate of %.4g", i, s, want)
		}
	}
	if !strings.Contains(rep.Note, "Rates between the synchronous step's") {
		t.Errorf("note %q", rep.Note)
	}
	_, again, _ := cli(t, "report", recs, "--format", "json")
	var fromRecords struct{ Steps []step }
	if json.Unmarshal([]byte(again), &fromRecords) != nil || len(fromRecords.Steps) != 4 {
		t.Fatalf("report of the records: %s", again)
	}
	for i := range fromRecords.Steps {
		if fromRecords.Steps[i] != rep.Steps[i] {
			t.Errorf("step %d: run %+v, records %+v", i, rep.Steps[i], fromRecords.Steps[i])
		}
	}
	for _, bad := range [][]string{
		{"--sweep-rates", "auto:0", "--requests", "2"},
		{"--sweep-rates", "auto3", "--requests", "2"},
		{"--sweep-rates", "auto", "--duration", "1s"}, // no --concurrency for the throughput step
		{"--sweep-rates", "auto", "--requests", "4", "--shard", "0/2"},
	} {
		if code, _, errs := cli(t, append([]string{"run", "--url", srv.URL, "--model", "m"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, %q", bad, code, errs)
		}
	}
}
