package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
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
