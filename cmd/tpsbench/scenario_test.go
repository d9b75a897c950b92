package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenario: a scenario file sets run's flags, lists included, and the
// command line wins over it.
func TestScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.yaml")
	os.WriteFile(path, []byte(`# the tiny engine over three concurrencies
engine-model: tiny
sweep: [1, 2, 4]
max-tokens: 8
requests: 4
format: json
quiet: true
`), 0o644)
	code, out, errs := cli(t, "run", "--scenario", path, "--max-tokens", "5")
	var rep struct {
		Steps []struct {
			Concurrency int `json:"concurrency"`
			Output      int `json:"output_tokens"`
		} `json:"steps"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	if len(rep.Steps) != 3 {
		t.Fatalf("%d steps, want the scenario's 3", len(rep.Steps))
	}
	for i, s := range rep.Steps {
		// four requests of the command line's 5 tokens (the engine honours
		// max_tokens exactly), not the scenario's 8
		if s.Concurrency != []int{1, 2, 4}[i] || s.Output != 20 {
			t.Errorf("step %d: %+v", i, s)
		}
	}
}

func TestScenarioErrors(t *testing.T) {
	for name, body := range map[string]string{
		"unknown key":   "max_tokens: 5\n",
		"itself":        "scenario: other.yaml\n",
		"mapping":       "model: {a: 1}\n",
		"not yaml":      ": : :\n\t- x",
		"list for int":  "concurrency: [1, 2]\n",
		"bad value":     "max-tokens: many\n",
		"empty list":    "model: []\n",
		"no value":      "url:\n",
		"top-level seq": "- a\n- b\n",
	} {
		path := filepath.Join(t.TempDir(), "s.yaml")
		os.WriteFile(path, []byte(body), 0o644)
		code, _, errs := cli(t, "run", "--scenario", path)
		if code != exitUsage || !strings.Contains(errs, "scenario "+path) {
			t.Errorf("%s: exit %d, %q", name, code, errs)
		}
	}
	if code, _, errs := cli(t, "run", "--scenario", filepath.Join(t.TempDir(), "missing.yaml")); code != exitUsage || !strings.Contains(errs, "missing.yaml") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}

// FuzzScenario: any file gives settings that are applied or refused with
// an error; never a panic.
func FuzzScenario(f *testing.F) {
	f.Add([]byte("sweep: [1, 4]\nmodel: [a, b]\nrate: .inf\nmax-tokens: 5\nno-stream: true\n"))
	f.Add([]byte("header: ['X-A: 1']\nslo: ttft=1s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		settings, err := parseScenario(data)
		if err != nil {
			return
		}
		_ = applySettings(newRunCmd().Flags(), settings)
	})
}
