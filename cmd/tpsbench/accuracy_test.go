package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestAccuracyUnderLoad: --accuracy-file asks four questions in turn
// (right answers B, B, C, A) of a server that answers " B" to its first
// eight requests and " C" after: the first step (c=1, 8 requests) is
// right 4 times of 8, the second (c=2) 2 of 8, and none of the second's
// answers are the first's (batch invariance, by request number). The
// records keep each verdict; a bad question file is a usage error.
func TestAccuracyUnderLoad(t *testing.T) {
	srv := scripted.NewFunc(func(seq int) scripted.Script {
		word := " B"
		if seq >= 8 {
			word = " C"
		}
		return scripted.Script{TTFT: 5 * time.Millisecond, Gap: time.Millisecond, Usage: true, Word: word}
	})
	defer srv.Close()
	dir := t.TempDir()
	questions := filepath.Join(dir, "q.jsonl")
	var b strings.Builder
	for _, a := range []string{"B", "B", "C", "A"} {
		b.WriteString(`{"question": "Which?", "choices": ["w", "x", "y", "z"], "answer": "` + a + `"}` + "\n")
	}
	os.WriteFile(questions, []byte(b.String()), 0o644)
	records := filepath.Join(dir, "r.jsonl")
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--accuracy-file", questions, "--sweep", "1,2", "--requests", "8",
		"--warmup", "0", "--max-tokens", "2", "--records", records, "--format", "json", "-q")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep struct {
		Steps []struct {
			Label    string `json:"label"`
			Accuracy *struct {
				Graded, Correct, Compared int
				Same                      int     `json:"same_as_first"`
				Share                     float64 `json:"share"`
				Base                      string  `json:"base"`
			} `json:"accuracy"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Steps) != 2 || rep.Steps[0].Accuracy == nil || rep.Steps[1].Accuracy == nil {
		t.Fatalf("%v: %s", err, out)
	}
	a, c := rep.Steps[0].Accuracy, rep.Steps[1].Accuracy
	if a.Graded != 8 || a.Correct != 4 || a.Share != 0.5 || a.Compared != 0 {
		t.Errorf("first step: %+v", *a)
	}
	if c.Graded != 8 || c.Correct != 2 || c.Compared != 8 || c.Same != 0 || c.Base != rep.Steps[0].Label {
		t.Errorf("second step: %+v", *c)
	}
	// the report of the records gives the same, in words
	code, out, errs = cli(t, "report", records)
	if code != 0 || !strings.Contains(out, "Accuracy: 4 of 8 answers right (50.0%)") || !strings.Contains(out, "0 of 8 answers to the requests c=1 also answered were its answers") {
		t.Errorf("report: exit %d\n%s%s", code, out, errs)
	}
	// the embedded engine's synthetic weights answer noise: a wiring test, said so
	code, out, errs = cli(t, "run", "--engine-model", "tiny", "--accuracy-file", questions, "--requests", "2", "--max-tokens", "2", "-q")
	if code != 0 || !strings.Contains(errs, "the engine's weights are synthetic") || !strings.Contains(out, "answers right") {
		t.Errorf("the engine: exit %d\n%s%s", code, out, errs)
	}
	os.WriteFile(questions, []byte(`{"question": "q", "choices": ["a", "b"], "answer": 5}`), 0o644)
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--accuracy-file", questions, "-q"); code != exitUsage || !strings.Contains(errs, "question 1") {
		t.Errorf("a bad question: exit %d %s", code, errs)
	}
}
