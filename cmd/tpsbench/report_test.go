package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSweepAndCompare(t *testing.T) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--sweep", "1,2,4", "--max-tokens", "4", "-q")
	if code != 0 || !strings.Contains(out, "c=1") || !strings.Contains(out, "c=4") || !strings.Contains(out, "TTFT p99") {
		t.Fatalf("sweep: exit %d\n%s%s", code, out, errs)
	}
	srv2 := server(t)
	code, out, errs = cli(t, "run", "--target", "a="+srv.URL+"#m1", "--target", "b="+srv2.URL+"#m2", "--max-tokens", "4", "--format", "csv", "-q")
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.Contains(out, "\na,m1,") || !strings.Contains(out, "\nb,m2,") {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = cli(t, "run", "--url", srv.URL, "--model", "x", "--model", "y", "--max-tokens", "4", "--format", "markdown", "-q")
	if code != 0 || !strings.Contains(out, "| x |") || !strings.Contains(out, "| y |") {
		t.Fatalf("compare models: exit %d\n%s", code, out)
	}
}

func TestPartialLastLineWarns(t *testing.T) {
	srv := server(t)
	recs := filepath.Join(t.TempDir(), "r.jsonl")
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "3", "--max-tokens", "3", "--records", recs, "-q"); code != 0 {
		t.Fatal(errs)
	}
	f, _ := os.OpenFile(recs, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"v":1,"run":"x","se`)
	f.Close()
	code, out, errs := cli(t, "report", recs)
	if code != 0 || !strings.Contains(errs, "partial last line") || !strings.Contains(out, "Total requests: 3") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

func TestCompareConventionsAndHTML(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "small.jsonl"), filepath.Join(dir, "big.jsonl")
	for _, p := range []string{a, b} {
		if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "3", "--concurrency", "3", "--max-tokens", "5", "--records", p, "-q"); code != 0 {
			t.Fatal(errs)
		}
	}
	code, out, errs := cli(t, "compare", a, b)
	if code != 0 || !strings.Contains(out, "Against small:") || !strings.Contains(out, "big") {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = cli(t, "compare", a, b, "--format", "markdown")
	if code != 0 || !strings.Contains(out, "## against small") {
		t.Fatalf("compare markdown: exit %d\n%s", code, out)
	}
	if code, _, _ := cli(t, "compare", a); code != exitUsage {
		t.Errorf("compare of one file: exit %d", code)
	}
	// Under vLLM's convention ITL is per event with choices: the role-only
	// event first, then 5 chunks: 5 gaps a request, 15 in all.
	code, out, _ = cli(t, "report", a, "--convention", "vllm", "--format", "json")
	if code != 0 || !strings.Contains(out, `"convention": "vllm"`) || !regexp.MustCompile(`"itl_ms": \{[^}]*"count": 15`).MatchString(out) {
		t.Fatalf("vllm convention: exit %d\n%s", code, out)
	}
	if code, _, _ := cli(t, "report", a, "--convention", "llmperf9"); code != exitUsage {
		t.Errorf("unknown convention: exit %d", code)
	}
	page := filepath.Join(dir, "r.html")
	if code, _, errs := cli(t, "report", a, "--format", "html", "--out", page); code != 0 {
		t.Fatal(errs)
	}
	html, _ := os.ReadFile(page)
	if !bytes.Contains(html, []byte("uPlot")) || !bytes.Contains(html, []byte(`id="summary"`)) {
		t.Error("HTML report lacks its charts or table")
	}
}

// TestAbsentFigures: a non-streamed request has no TPOT, ITL or decode
// TPS. They read 0.000 before; now "-" in text, null in JSON, and a
// target on one is not measurable and fails the run.
func TestAbsentFigures(t *testing.T) {
	srv := server(t)
	code, out, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--no-stream", "--requests", "2", "--concurrency", "2", "--max-tokens", "5", "--slo", "tpot=40ms")
	if code != exitTargetsFail || !strings.Contains(out, "NOT MEASURABLE tpot at most 40.00 ms") {
		t.Errorf("exit %d, want %d and a target not measurable:\n%s", code, exitTargetsFail, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "TPOT" || f[0] == "ITL") && strings.Count(line, "-") != 5 {
			t.Errorf("absent figure shown as a number: %q", line)
		}
	}
	code, out, _ = cli(t, "run", "--url", srv.URL, "--model", "m", "--no-stream", "--requests", "2", "--concurrency", "2", "--max-tokens", "5", "--format", "json", "-q")
	if code != 0 || !strings.Contains(out, `"tpot_ms": null`) || !strings.Contains(out, `"itl_ms": null`) || !strings.Contains(out, `"decode_tps": null`) {
		t.Errorf("exit %d, JSON without null figures:\n%.2000s", code, out)
	}
}

// TestAllFailedShowsNoFigures: a step whose requests all failed printed a
// table of 0.000 ms; it has no latency figures to show.
func TestAllFailedShowsNoFigures(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer down.Close()
	_, out, _ := cli(t, "run", "--url", down.URL, "--model", "m", "--requests", "3", "--concurrency", "3", "--max-tokens", "5")
	for _, name := range []string{"TTFT", "TPOT", "ITL", "E2E"} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == name {
				found = true
				if strings.Contains(line, "0.000") || strings.Count(line, " - ") < 4 {
					t.Errorf("a figure of failed requests: %q", line)
				}
			}
		}
		if !found {
			t.Errorf("no %s row:\n%s", name, out)
		}
	}
}
