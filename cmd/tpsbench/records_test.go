package main

import (
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// recordsOf is the records of a file a run wrote, in the order of their
// requests' sequence numbers.
func recordsOf(t *testing.T, path string) []record.Record {
	t.Helper()
	var recs []record.Record
	if err := readRecords(path, io.Discard, func(r *record.Record) {
		c := *r
		c.Chunks = slices.Clone(r.Chunks) // the reader reuses its record
		recs = append(recs, c)
	}); err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	return recs
}

// TestRecordsKeepTheRun: a report of a run's records says what the run
// said that no record holds: the targets' verdicts, without --slo given
// again, and what every request carried; a merge keeps each shard's.
func TestRecordsKeepTheRun(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	recs := filepath.Join(dir, "r.jsonl")
	code, run, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "4", "--concurrency", "2", "--max-tokens", "4",
		"--slo", "ttft=1ms", "--records", recs)
	if code != exitTargetsFail {
		t.Fatalf("exit %d (want the ttft target missed): %s", code, errs)
	}
	merged := filepath.Join(dir, "m.jsonl")
	if code, _, errs := cli(t, "merge", recs, "-o", merged); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	for _, path := range []string{recs, merged} {
		code, out, _ := cli(t, "report", path)
		for _, line := range []string{"Sent with every request:", "ttft"} {
			if !strings.Contains(out, line) || !strings.Contains(run, line) {
				t.Errorf("%s: %q in the run's report %v, in the records' %v", path, line, strings.Contains(run, line), strings.Contains(out, line))
			}
		}
		if code != exitTargetsFail {
			t.Errorf("report of %s: exit %d, want %d: the run's target, missed", path, code, exitTargetsFail)
		}
		if code, _, _ := cli(t, "report", path, "--slo", "ttft=1h"); code != 0 {
			t.Errorf("report of %s with a target of its own: exit %d, want 0", path, code)
		}
	}
}
