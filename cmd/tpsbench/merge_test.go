package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

func TestShardsMergeExactly(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 10 * time.Millisecond, Gap: 5 * time.Millisecond, Usage: true})
	defer srv.Close()
	dir := t.TempDir()
	start := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	var files []string
	var wg sync.WaitGroup
	codes := make([]int, 3)
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
		files = append(files, p)
		wg.Go(func() {
			codes[i], _, _ = cli(t, "run", "--url", srv.URL, "--model", "m", "--concurrency", "6", "--requests", "60", "--max-tokens", "10",
				"--shard", fmt.Sprintf("%d/3", i), "--start-at", start, "--records", p, "-q")
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Fatalf("shard %d: exit %d", i, c)
		}
	}
	merged := filepath.Join(dir, "merged.jsonl")
	if code, _, errs := cli(t, "merge", files[0], files[1], files[2], "-o", merged); code != 0 {
		t.Fatal(errs)
	}
	var rep struct {
		Steps []struct {
			Requests    struct{ Completed int }
			Concurrency int     `json:"concurrency"`
			Output      int64   `json:"output_tokens"`
			SystemTPS   float64 `json:"system_tps"`
			Start       int64   `json:"start_unix_ns"`
			End         int64   `json:"end_unix_ns"`
		} `json:"steps"`
	}
	_, out, _ := cli(t, "report", merged, "--format", "json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Steps) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	// By hand, from the shard files: totals and the union window.
	var tokens int64
	var first, last int64
	n := 0
	for _, p := range files {
		readRecords(p, io.Discard, func(r *record.Record) {
			n++
			tokens += int64(r.OutputTokens)
			if first == 0 || r.Abs(r.Sent) < first {
				first = r.Abs(r.Sent)
			}
			last = max(last, r.Abs(r.Done))
		})
	}
	s := rep.Steps[0]
	want := float64(tokens) / (float64(last-first) / 1e9)
	// the load is the shards' together: 6 in flight, 2 from each
	if n != 60 || s.Requests.Completed != 60 || s.Output != tokens || s.Start != first || s.End != last || math.Abs(s.SystemTPS-want) > 1e-9*want ||
		s.Concurrency != 6 {
		t.Fatalf("merged %+v; by hand: %d records, %d tokens, window %d..%d, %.3f tok/s", s, n, tokens, first, last, want)
	}
	// Same figures whether reported from the shards or the merged file.
	_, a, _ := cli(t, "report", files[0], files[1], files[2], "--format", "json")
	if a != out {
		t.Error("report of the shards differs from report of the merged file")
	}
	// And close to one process running the same schedule (the server's
	// pace sets the figures; 25% allows for a loaded machine).
	_, single, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--concurrency", "6", "--requests", "60", "--max-tokens", "10", "--format", "json", "-q")
	var one struct {
		Steps []struct {
			SystemTPS float64 `json:"system_tps"`
		} `json:"steps"`
	}
	json.Unmarshal([]byte(single), &one)
	if r := s.SystemTPS / one.Steps[0].SystemTPS; r < 0.75 || r > 1.33 {
		t.Errorf("merged shards %.1f tok/s, one process %.1f tok/s", s.SystemTPS, one.Steps[0].SystemTPS)
	}
	if code, _, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--shard", "3/3"); code != exitUsage {
		t.Errorf("--shard 3/3: exit %d", code)
	}
	if code, _, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--start-at", "soon"); code != exitUsage {
		t.Errorf("--start-at soon: exit %d", code)
	}
}
