package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGPUEnergy: --gpu-metrics reads a DCGM exporter at the step's first
// measured request and at its end (this one's counter grows 5,000 mJ a
// scrape): the step spent 5 J, over its output tokens a token; the text
// report says so.
func TestGPUEnergy(t *testing.T) {
	var scrapes atomic.Int64
	dcgm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} %d\n", 5000*scrapes.Add(1))
	}))
	defer dcgm.Close()
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--requests", "4", "--concurrency", "2",
		"--gpu-metrics", dcgm.URL, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Steps []struct {
			OutputTokens int `json:"output_tokens"`
			Energy       struct {
				Joules         float64 `json:"joules"`
				JoulesPerToken float64 `json:"joules_per_token"`
				Source         string  `json:"source"`
			} `json:"energy"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	e := rep.Steps[0].Energy
	if e.Joules != 5 || math.Abs(e.JoulesPerToken-5/float64(rep.Steps[0].OutputTokens)) > 1e-12 || e.Source != "DCGM (GPUs)" {
		t.Errorf("energy %+v over %d tokens", e, rep.Steps[0].OutputTokens)
	}
	_, text, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--requests", "2", "--gpu-metrics", dcgm.URL, "-q")
	if !strings.Contains(text, "Energy: 5.00 J from DCGM (GPUs)") {
		t.Errorf("text report:\n%s", text)
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--gpu-metrics", dcgm.URL, "--cpu-energy"); code != exitUsage || !strings.Contains(errs, "one meter") {
		t.Errorf("two meters: exit %d %s", code, errs)
	}
}

// TestGPUEnergyNvidiaSMI: --gpu-metrics nvidia-smi runs the nvidia-smi
// on PATH (here a stand-in whose two GPUs' counters grow 1,000 mJ and 1 J
// a call) around the step: it spent 2 J.
func TestGPUEnergyNvidiaSMI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte("#!/bin/sh\necho x >> "+calls+"\nn=$(wc -l < "+calls+")\necho \"$((n * 1000)) mJ\"\necho \"$n J\"\n"), 0o755)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv := server(t)
	_, text, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--requests", "2", "--gpu-metrics", "nvidia-smi", "-q")
	if !strings.Contains(text, "Energy: 2.00 J from nvidia-smi (GPUs)") {
		t.Errorf("text report:\n%s\nstderr:\n%s", text, errs)
	}
}

// TestCostPerHour: --cost-per-hour prices a step's tokens at its rates:
// dollars a million output tokens are the price over an hour's tokens at
// the step's system TPS; the text report says it.
func TestCostPerHour(t *testing.T) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--requests", "4", "--cost-per-hour", "3.6", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Steps []struct {
			SystemTPS float64 `json:"system_tps"`
			Cost      struct {
				PerHour float64 `json:"usd_per_hour"`
				Output  float64 `json:"usd_per_million_output_tokens"`
			} `json:"cost"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Steps[0]
	if want := 3.6 / (s.SystemTPS * 3600) * 1e6; s.Cost.PerHour != 3.6 || math.Abs(s.Cost.Output-want) > 1e-9*want {
		t.Errorf("cost %+v at system TPS %v, want %v a million", s.Cost, s.SystemTPS, want)
	}
	if _, text, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--requests", "2", "--cost-per-hour", "3.6", "-q"); !strings.Contains(text, "Cost at $3.60 an hour:") {
		t.Errorf("text report:\n%s", text)
	}
	if code, _, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--cost-per-hour", "-1"); code != exitUsage {
		t.Errorf("a negative price: exit %d", code)
	}
}
