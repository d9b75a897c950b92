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

// TestPlannedCancellations: --request-cancellation-rate 50 with a delay of
// 60 ms, against a server that takes 400 ms an answer. The requests drawn
// are cancelled mid-answer: the scripted server's log shows it stopped
// sending before their budget, the records say client_cancel, and the
// report counts them apart and keeps them out of every figure; the others
// complete whole.
func TestPlannedCancellations(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 2 * time.Millisecond, Gap: 10 * time.Millisecond, Usage: true})
	defer srv.Close()
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "rep.json")
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "40", "--requests", "8", "--concurrency", "4",
		"--request-cancellation-rate", "50", "--request-cancellation-delay", "60ms", "--records", out, "--format", "json", "--out", rep, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, _ := os.Open(out)
	defer f.Close()
	rd := record.NewReader(f, out)
	cancelled, completed := 0, 0
	for {
		var r record.Record
		if rd.Next(&r) != nil {
			break
		}
		log, ok := srv.Log(r.ResponseID)
		switch {
		case r.CancelledByPlan():
			cancelled++
			if ok && len(log.Events) >= 40 {
				t.Errorf("request %d cancelled, yet the server sent all %d events", r.Seq, len(log.Events))
			}
		case r.OK():
			completed++
			if r.OutputTokens != 40 {
				t.Errorf("request %d completed with %d tokens", r.Seq, r.OutputTokens)
			}
		default:
			t.Errorf("request %d failed: %+v", r.Seq, r.Error)
		}
	}
	if cancelled == 0 || completed == 0 || cancelled+completed != 8 {
		t.Fatalf("%d cancelled and %d completed of 8", cancelled, completed)
	}
	data, _ := os.ReadFile(rep)
	var report struct {
		Steps []struct {
			Requests struct{ Completed, Failed, Cancelled int }
			TTFT     struct{ Count int } `json:"ttft_ms"`
		}
	}
	if err := json.Unmarshal(data, &report); err != nil {
		t.Fatal(err)
	}
	s := report.Steps[0]
	if s.Requests.Cancelled != cancelled || s.Requests.Completed != completed || s.Requests.Failed != 0 || s.TTFT.Count != completed {
		t.Errorf("report: %+v, TTFT samples %d; the records %d cancelled, %d completed", s.Requests, s.TTFT.Count, cancelled, completed)
	}
	code, text, _ := cli(t, "report", out)
	if code != 0 || !strings.Contains(text, "Cancelled as planned:") {
		t.Errorf("text report:\n%s", text)
	}
}
