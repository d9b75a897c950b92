package main

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// TestRampUpAndCoolDown: a step of 300 ms at 100 requests/s, rising over
// its first 100 ms and with a 50 ms cool-down: the records say which part
// each request went out in, the report counts the ramp's and the
// cool-down's apart and measures the steady part alone: its completed
// requests are the steady records'.
func TestRampUpAndCoolDown(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Usage: true})
	defer srv.Close()
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "rep.json")
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "2", "--rate", "100", "--arrivals", "constant",
		"--duration", "300ms", "--ramp-up-duration", "100ms", "--cool-down-duration", "50ms", "--records", out, "--format", "json", "--out", rep, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, _ := os.Open(out)
	defer f.Close()
	rd := record.NewReader(f, out)
	phases := map[string]int{}
	for {
		var r record.Record
		if rd.Next(&r) != nil {
			break
		}
		phases[r.Phase]++
	}
	if phases["ramp_up"] == 0 || phases["cool_down"] == 0 || phases[""] == 0 {
		t.Fatalf("phases %v", phases)
	}
	data, _ := os.ReadFile(rep)
	var report struct {
		Steps []struct {
			Requests struct{ Completed int }
			RampUp   int `json:"ramp_up_requests"`
			CoolDown int `json:"cool_down_requests"`
		}
	}
	json.Unmarshal(data, &report)
	s := report.Steps[0]
	if s.RampUp != phases["ramp_up"] || s.CoolDown != phases["cool_down"] || s.Requests.Completed != phases[""] {
		t.Errorf("report %+v; records %v", s, phases)
	}
	if _, text, _ := cli(t, "report", out); !strings.Contains(text, "Ramp-up and cool-down:") {
		t.Errorf("text report:\n%s", text)
	}
}

// TestRampUpUsersExponentialFlag: --ramp-up-strategy exponential with
// --ramp-up-duration doubles the users at even steps: 4 users over 300 ms
// are scheduled at 0, 150, 237.7 and 300 ms (300 ms * log4(w+1)), the
// last one at the ramp's end and so the steady part's.
func TestRampUpUsersExponentialFlag(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 350 * time.Millisecond, Usage: true})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "2", "--concurrency", "4", "--requests", "4",
		"--ramp-up-duration", "300ms", "--ramp-up-strategy", "exponential", "--records", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := recordsOf(t, out)
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	slices.SortFunc(recs, func(a, b record.Record) int { return cmp.Compare(a.Scheduled, b.Scheduled) })
	want := []time.Duration{0, 150 * time.Millisecond, 237737965 * time.Nanosecond, 300 * time.Millisecond}
	for i, r := range recs {
		at := time.Duration(r.Scheduled - recs[0].Scheduled)
		if (at - want[i]).Abs() > 10*time.Microsecond {
			t.Errorf("user %d scheduled at %v, want %v", i, at, want[i])
		}
		if phase := map[bool]string{true: "ramp_up", false: ""}[i < 3]; r.Phase != phase {
			t.Errorf("user %d in phase %q", i, r.Phase)
		}
	}
	for _, bad := range [][]string{
		{"--rate", "10", "--requests", "4", "--ramp-up-duration", "1s", "--ramp-up-strategy", "exponential"},
		{"--concurrency", "4", "--requests", "4", "--ramp-up-duration", "1s", "--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "4"},
	} {
		if code, _, _ := cli(t, append([]string{"run", "--url", srv.URL, "--model", "m"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}
