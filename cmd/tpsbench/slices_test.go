package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSliceDuration: --slice-duration reports each step slice by slice:
// the slices' requests and their tokens add up to the step's, and every
// slice holds a request sent in it; the text report shows the table, and a report of
// the records takes the flag too.
func TestSliceDuration(t *testing.T) {
	srv := server(t)
	recs := filepath.Join(t.TempDir(), "r.jsonl")
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "4", "--rate", "40", "--requests", "8",
		"--slice-duration", "50ms", "--format", "json", "--records", recs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Steps []struct {
			OutputTokens int `json:"output_tokens"`
			Slices       []struct {
				StartS   float64 `json:"start_s"`
				Requests int     `json:"requests"`
				Tokens   int     `json:"output_tokens"`
			} `json:"slices"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	st := rep.Steps[0]
	requests, tokens := 0, 0
	for _, s := range st.Slices {
		requests += s.Requests
		tokens += s.Tokens
		if s.Requests == 0 {
			t.Errorf("a slice at %v s with no request sent in it", s.StartS)
		}
	}
	if len(st.Slices) < 2 || requests != 8 || tokens != st.OutputTokens {
		t.Errorf("%d slices, %d requests and %d tokens in them; the step %d tokens", len(st.Slices), requests, tokens, st.OutputTokens)
	}
	if _, text, _ := cli(t, "report", recs, "--slice-duration", "50ms"); !strings.Contains(text, "Time slices of") || !strings.Contains(text, "TTFT p50") {
		t.Errorf("text report:\n%s", text)
	}
	if code, _, _ := cli(t, "report", recs, "--slice-duration", "-1s"); code != exitUsage {
		t.Errorf("a negative slice: exit %d", code)
	}
}
