package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepServe: a sweep over the embedded engine's --max-num-seqs, each
// point's server (this tpsbench, serve) started at its own port, measured
// by run, and stopped: a row a point, the front marked, the best point
// under the target named; --resume keeps what was measured; --dry-run
// says the commands.
func TestSweepServe(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	sweepArgs := []string{"sweep", "--serve-cmd", bin + " serve --model tiny --threads 1 --max-num-seqs {seqs} --addr 127.0.0.1:{port}",
		"--grid", "seqs=1,4", "--dir", dir, "--ready-timeout", "2m"}
	runArgs := []string{"--", "--concurrency", "4", "--requests", "8", "--max-tokens", "8", "--slo", "system_tps=1", "--repeat", "2"}
	code, out, errs := cli(t, append(append([]string{}, sweepArgs...), runArgs...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// each point run twice: its system TPS a mean with its interval
	for _, want := range []string{"seqs=1", "seqs=4", "system TPS", "Best point meeting every target: seqs=", " ["} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "*") {
		t.Errorf("no point on the front:\n%s", out)
	}
	code, js, errs := cli(t, append(append(append([]string{}, sweepArgs...), "--resume", "--format", "json"), runArgs...)...)
	if code != 0 {
		t.Fatalf("resume: exit %d %s", code, errs)
	}
	var res struct {
		Points []struct {
			Params  map[string]string `json:"params"`
			Resumed bool              `json:"resumed"`
			Steps   []struct {
				Requests struct{ Completed int } `json:"requests"`
			} `json:"steps"`
		} `json:"points"`
		Best string `json:"best"`
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if len(res.Points) != 2 || !res.Points[0].Resumed || !res.Points[1].Resumed || res.Points[0].Steps[0].Requests.Completed != 8 || res.Best == "" {
		t.Errorf("resumed sweep %+v", res)
	}
	if !strings.HasPrefix(res.Best, dir) || filepath.Base(res.Best) == "" {
		t.Errorf("best %q", res.Best)
	}
	code, _, errs = cli(t, "sweep", "--serve-cmd", "serve --seqs {seqs} --port {port}", "--grid", "seqs=2,8", "--dry-run")
	if code != 0 || !strings.Contains(errs, "serve --seqs 8 --port") {
		t.Errorf("dry run: exit %d %s", code, errs)
	}
	if code, _, errs := cli(t, "sweep", "--serve-cmd", "x {nope}", "--grid", "seqs=1", "--dir", dir); code == 0 || !strings.Contains(errs, "{nope}") {
		t.Errorf("an unknown placeholder: exit %d %s", code, errs)
	}
}
