package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestEmbeddingsRun: --api embeddings --batch-size 4 sends batches of four
// prompts (the server received 4 inputs in each of 6 requests) and reports
// what applies: 24 inputs and their rate over the step, the prompt tokens
// the server charged, and the latency; no TPS in the text report.
func TestEmbeddingsRun(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 5 * time.Millisecond})
	defer srv.Close()
	args := []string{"run", "--url", srv.URL, "--model", "m", "--api", "embeddings", "--batch-size", "4", "--input-tokens", "8",
		"--requests", "6", "--concurrency", "2"}
	code, out, errs := cli(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	charged, inputs := 0, 0
	for _, s := range srv.All() {
		var body struct{ Input []string }
		json.Unmarshal(s.Request, &body)
		if len(body.Input) != 4 || s.Tokens[0] != 4 {
			t.Errorf("the server received %s", s.Request)
		}
		inputs += len(body.Input)
		for _, in := range body.Input {
			charged += max(1, len(strings.Fields(in)))
		}
	}
	var rep struct {
		Steps []struct {
			Outputless      bool    `json:"outputless"`
			Inputs          int     `json:"inputs"`
			InputsPerSecond float64 `json:"inputs_per_s"`
			InputTokens     int     `json:"input_tokens"`
			DurationS       float64 `json:"duration_s"`
			Requests        struct{ Completed int }
			E2E             struct{ Count int } `json:"e2e_ms"`
			TTFT            struct{ Count int } `json:"ttft_ms"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Steps[0]
	if !s.Outputless || s.Inputs != 24 || inputs != 24 || s.InputTokens != charged || s.Requests.Completed != 6 || s.E2E.Count != 6 || s.TTFT.Count != 0 {
		t.Errorf("step %+v; the server received %d inputs and charged %d tokens", s, inputs, charged)
	}
	if math.Abs(s.InputsPerSecond-24/s.DurationS) > 1e-9*s.InputsPerSecond {
		t.Errorf("%v inputs/s over %v s", s.InputsPerSecond, s.DurationS)
	}
	_, text, _ := cli(t, append(args, "-q")...)
	if !strings.Contains(text, "Inputs: 24 (4.00 a request)") || strings.Contains(text, "System TPS") || strings.Contains(text, "TTFT") {
		t.Errorf("text report:\n%s", text)
	}
	// a sweep's page charts inputs and requests a second, not TPS
	_, page, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "embeddings", "--sweep", "1,2", "--requests", "4", "-q", "--format", "html")
	if !strings.Contains(page, "Inputs and requests a second against concurrency") || !strings.Contains(page, "<th>inputs/s</th>") || strings.Contains(page, "System TPS and per-request TPS") {
		t.Errorf("the sweep's page lacks its inputs chart or table")
	}
	// compare sets two runs side by side on inputs/s and latency
	dir := t.TempDir()
	for _, c := range []string{"1", "3"} {
		if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "embeddings", "--requests", "6", "--concurrency", c, "-q", "--records", filepath.Join(dir, "c"+c+".jsonl")); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	_, cmpText, _ := cli(t, "compare", filepath.Join(dir, "c1.jsonl"), filepath.Join(dir, "c3.jsonl"))
	if !strings.Contains(cmpText, "Against c1:\n  step  inputs/s  requests/s  E2E p50  E2E p99") || strings.Contains(cmpText, "system TPS") {
		t.Errorf("compare of embeddings runs:\n%s", cmpText)
	}
	for _, bad := range [][]string{{"--batch-size", "4"}, {"--api", "embeddings", "--batch-size", "0"}, {"--api", "embeddings", "--turns", "3"}} {
		if code, _, errs := cli(t, append([]string{"run", "--url", srv.URL, "--model", "m"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d %s", bad, code, errs)
		}
	}
}

// TestRerankRun: --api rerank --batch-size 3 sends a query and three
// documents a request (what the server received), and reports 3 inputs
// a request; the embedded engine does not serve it.
func TestRerankRun(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 2 * time.Millisecond})
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "rerank", "--batch-size", "3", "--input-tokens", "6",
		"--requests", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range srv.All() {
		var body struct {
			Query     string
			Documents []string
		}
		json.Unmarshal(s.Request, &body)
		if body.Query == "" || len(body.Documents) != 3 {
			t.Errorf("the server received %s", s.Request)
		}
	}
	var rep struct {
		Steps []struct {
			Inputs   int
			Requests struct{ Completed int }
		}
	}
	json.Unmarshal([]byte(out), &rep)
	if s := rep.Steps[0]; s.Inputs != 12 || s.Requests.Completed != 4 {
		t.Errorf("step %+v", s)
	}
	if code, _, errs := cli(t, "run", "--api", "rerank", "--requests", "1"); code != exitUsage || !strings.Contains(errs, "rerank") {
		t.Errorf("rerank on the engine: exit %d %s", code, errs)
	}
}

// TestReplayOutputless: records of embeddings and rerank runs replay as
// such: each replayed request sends as many inputs (documents, after a
// query) as its record counted, the server's log says so, and an
// embeddings replay's prompts are of the records' lengths exactly.
func TestReplayOutputless(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 2 * time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	for _, c := range []struct {
		api, batch string
		inputs     int
	}{{"embeddings", "4", 4}, {"rerank", "3", 3}} {
		recs := filepath.Join(dir, c.api+".jsonl")
		code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", c.api, "--batch-size", c.batch, "--input-tokens", "8",
			"--requests", "3", "--concurrency", "1", "-q", "--records", recs)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.api, code, errs)
		}
		before := srv.Requests()
		code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", c.api, "--trace", recs, "--format", "json")
		if code != 0 {
			t.Fatalf("%s replay: exit %d: %s", c.api, code, errs)
		}
		prefix := map[string]string{"embeddings": "embd-", "rerank": "rerank-"}[c.api]
		for seq := before; seq < srv.Requests(); seq++ {
			s, ok := srv.Log(fmt.Sprintf("%s%d", prefix, seq))
			if !ok || s.Tokens[0] != c.inputs {
				t.Errorf("%s replay: request %d sent %v inputs (logged %v), want %d", c.api, seq, s.Tokens, ok, c.inputs)
			}
		}
		var rep struct {
			Steps []struct {
				Requests struct{ Completed int }
				Replay   struct {
					Requests   int `json:"requests"`
					InputExact int `json:"input_exact"`
				} `json:"replay"`
			} `json:"steps"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		st := rep.Steps[0]
		if st.Requests.Completed != 3 || srv.Requests()-before != 3 || st.Replay.Requests != 3 || (c.api == "embeddings" && st.Replay.InputExact != 3) {
			t.Errorf("%s replay: step %+v, %d requests sent", c.api, st, srv.Requests()-before)
		}
	}
}
