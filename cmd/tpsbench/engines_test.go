package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

func TestEngineIsTheDefaultTarget(t *testing.T) {
	// the name the engine serves may be given, and only that one
	code, out, errs := cli(t, "run", "--engine-model", "tiny", "--model", "tpsbench-tiny-f32", "--max-tokens", "12", "--requests", "4", "--concurrency", "2", "--format", "json", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Steps []struct {
			Model    string `json:"model"`
			Requests struct{ Completed int }
			Output   int `json:"output_tokens"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// ignore_eos is on for the engine: every request makes exactly --max-tokens.
	if s := rep.Steps[0]; s.Model != "tpsbench-tiny-f32" || s.Requests.Completed != 4 || s.Output != 48 {
		t.Fatalf("%+v", rep.Steps)
	}
}

func TestFactors(t *testing.T) {
	code, out, errs := cli(t, "run", "--factor", "quantization", "--engine-model", "tiny", "--max-tokens", "4", "--format", "csv", "-q")
	if code != 0 || !strings.Contains(out, "\nF16,tpsbench-tiny-f16,") || !strings.Contains(out, "\nQ8_0,tpsbench-tiny-q8_0,") || !strings.Contains(out, "\nQ4_0,tpsbench-tiny-q4_0,") {
		t.Fatalf("quantization: exit %d\n%s%s", code, out, errs)
	}
	long := strings.Repeat("the story of the little house ", 4)
	code, out, errs = cli(t, "run", "--factor", "prefix-cache", "--engine-model", "tiny", "--prompt", long, "--max-tokens", "4", "--format", "json", "-q")
	var rep struct {
		Steps []struct {
			Label    string
			Requests struct{ Completed int }
			TTFT     struct{ P50 float64 } `json:"ttft_ms"`
		} `json:"steps"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Steps) != 2 || rep.Steps[0].Label != "cold" || rep.Steps[1].Requests.Completed != 4 {
		t.Fatalf("prefix-cache: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = cli(t, "run", "--factor", "batch", "--sweep", "1,2", "--engine-model", "tiny", "--max-tokens", "4", "-q")
	if code != 0 || !strings.Contains(out, "c=2") {
		t.Fatalf("batch: exit %d\n%s%s", code, out, errs)
	}
	if code, _, _ := cli(t, "run", "--factor", "speed"); code != exitUsage {
		t.Errorf("unknown factor: exit %d", code)
	}
	if code, _, _ := cli(t, "run", "--factor", "quantization", "--url", "http://127.0.0.1:1"); code != exitUsage {
		t.Errorf("quantization against a URL: exit %d", code)
	}
}

func TestExactPromptLengthsWithEngine(t *testing.T) {
	recs := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := cli(t, "run", "--engine-model", "15m", "--input-tokens", "120", "--output-tokens", "4", "--requests", "3", "--records", recs)
	if code != 0 || !strings.Contains(errs, "calibrated with the server's /tokenize") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	n := 0
	readRecords(recs, io.Discard, func(r *record.Record) {
		if r.Warmup {
			return // the embedded engine is warmed up first
		}
		n++
		if r.PromptTokens != 120 || r.OutputTokens != 4 {
			t.Errorf("record %d: %d prompt tokens, %d output", r.Seq, r.PromptTokens, r.OutputTokens)
		}
	})
	if n != 3 {
		t.Fatalf("%d records", n)
	}
}

// TestEngineSizedForConcurrency: --concurrency 32 against the embedded
// engine queued half the requests behind its 16 sequences, silently. The
// engine is now sized for what the run asks, and a cap set below it is
// warned about.
func TestEngineSizedForConcurrency(t *testing.T) {
	code, out, errs := cli(t, "run", "--engine-model", "tiny", "--concurrency", "24", "--requests", "24", "--max-tokens", "2", "--server-metrics", "engine", "--format", "json", "-q")
	var rep struct {
		Steps []struct {
			Server struct {
				MaxWaiting float64 `json:"max_waiting"`
			} `json:"server"`
		} `json:"steps"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Steps) != 1 || strings.Contains(errs, "warning: concurrency") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	if w := rep.Steps[0].Server.MaxWaiting; w != 0 {
		t.Errorf("%v requests waited in an engine sized for 24", w)
	}
	code, _, errs = cli(t, "run", "--engine-model", "tiny", "--engine-max-num-seqs", "4", "--concurrency", "8", "--requests", "8", "--max-tokens", "2", "-q")
	if code != 0 || !strings.Contains(errs, "warning: concurrency 8 exceeds the 4 sequences the engine runs at once") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestEnginePromptCache: with prefix caching, the embedded engine says in
// its usage how much of each prompt its cache held, as vLLM does
// (prompt_tokens_details.cached_tokens), and the report counts it: the
// first request finds nothing, the two after it the prompt's whole blocks.
func TestEnginePromptCache(t *testing.T) {
	recs := filepath.Join(t.TempDir(), "r.jsonl")
	code, out, errs := cli(t, "run", "--engine-model", "tiny", "--engine-enable-prefix-caching", "--prompt", strings.Repeat("the story of the little house ", 6),
		"--requests", "3", "--concurrency", "1", "--max-tokens", "4", "--warmup", "0", "--records", recs)
	if code != 0 || !strings.Contains(out, "Prompt cache: ") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	var cached []int
	for _, r := range recordsOf(t, recs) {
		cached = append(cached, r.CachedTokens)
		if r.CachedTokens%16 != 0 || r.CachedTokens >= r.PromptTokens {
			t.Errorf("request %d: %d of %d prompt tokens cached, want whole blocks of 16 and the last fed", r.Seq, r.CachedTokens, r.PromptTokens)
		}
	}
	if len(cached) != 3 || cached[0] != 0 || cached[1] == 0 || cached[2] != cached[1] {
		t.Errorf("cached tokens %v: want none, then the prompt's whole blocks twice", cached)
	}
}
