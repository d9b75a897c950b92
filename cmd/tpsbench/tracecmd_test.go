package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceStats: `trace stats` says what a trace asks before a replay:
// four Mooncake requests worked by hand in trace/analyze_test.go, as text
// and as JSON; a missing file or an unknown format exits 2.
func TestTraceStats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(`{"timestamp": 0, "input_length": 1024, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 1000, "input_length": 1536, "output_length": 20, "hash_ids": [1, 2, 3]}
{"timestamp": 3000, "input_length": 512, "output_length": 30, "hash_ids": [4]}
{"timestamp": 6000, "input_length": 1024, "output_length": 40, "hash_ids": [1, 9]}
`), 0o644)
	code, out, errOut := cli(t, "trace", "stats", path)
	for _, want := range []string{"(mooncake)", "Requests: 4\n", "0.500 requests/s", "coefficient of variation 0.50", "input  1024.0  512  1024  1536  1536  1536", "37.5% of prompt tokens (1536 of 4096)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s%s", want, out, errOut)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	code, out, _ = cli(t, "trace", "stats", "--json", path)
	var a struct {
		Requests    int     `json:"requests"`
		ReusedShare float64 `json:"reused_share"`
		Output      struct {
			P90 int `json:"p90"`
		} `json:"output_tokens"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil || code != 0 || a.Requests != 4 || a.ReusedShare != 0.375 || a.Output.P90 != 40 {
		t.Errorf("JSON %+v, %v, exit %d: %s", a, err, code, out)
	}
	for _, args := range [][]string{{"trace", "stats", path + ".missing"}, {"trace", "stats", "--format", "csv", path}} {
		if code, _, errOut := cli(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
