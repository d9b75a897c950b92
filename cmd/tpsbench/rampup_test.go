package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
