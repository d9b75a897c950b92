package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// sameReport says whether a run's JSON report and a report of its
// records are the same, what every request carried included (the
// records' header keeps it).
func sameReport(t *testing.T, run, records string) bool {
	t.Helper()
	var a, b map[string]any
	if json.Unmarshal([]byte(run), &a) != nil || json.Unmarshal([]byte(records), &b) != nil {
		return false
	}
	if _, ok := a["sent"]; !ok {
		t.Error("the run's report says nothing of what it sent")
	}
	return reflect.DeepEqual(a, b)
}

func TestBatchAndRecordsReportAgree(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	recs := filepath.Join(dir, "r.jsonl")
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "20", "--concurrency", "20", "--max-tokens", "10", "--records", recs, "--format", "json", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Tool  string `json:"tool"`
		Steps []struct {
			Requests struct{ Completed int } `json:"requests"`
			Output   int                     `json:"output_tokens"`
			System   float64                 `json:"system_tps"`
			TTFT     map[string]float64      `json:"ttft_ms"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json report: %v\n%s", err, out)
	}
	if rep.Tool != "tpsbench" || len(rep.Steps) != 1 || rep.Steps[0].Requests.Completed != 20 || rep.Steps[0].Output != 200 || rep.Steps[0].System <= 0 {
		t.Fatalf("report %+v", rep)
	}
	for _, k := range []string{"mean", "stddev", "min", "p50", "p90", "p95", "p99", "p999", "max", "count"} {
		if _, ok := rep.Steps[0].TTFT[k]; !ok {
			t.Errorf("ttft_ms lacks %q", k)
		}
	}
	for _, format := range []string{"json", "text", "csv", "markdown"} {
		_, again, _ := cli(t, "report", recs, "--format", format)
		_, run, _ := cli(t, "report", recs, "--format", format)
		if again != run || again == "" {
			t.Errorf("%s report not stable", format)
		}
		if format == "json" && !sameReport(t, out, again) {
			t.Errorf("report of the records differs from the run's:\nrun:\n%s\nreport:\n%s", out, again)
		}
	}
	data, _ := os.ReadFile(recs)
	if n := strings.Count(string(data), "\n"); n != 21 || !strings.HasPrefix(string(data), `{"header":{"run":`) {
		t.Errorf("records file has %d lines, want the run's header then 20 records", n)
	}
}

// TestShowTokens: the measured request's tokens, one line an arrival; a
// warm-up request's are not shown (the embedded engine's warm-up made 16
// rows of --max-tokens 8, averaged together).
func TestShowTokens(t *testing.T) {
	for _, warmup := range []string{"0", "2"} {
		t.Run("warmup "+warmup, func(t *testing.T) { showTokens(t, warmup) })
	}
}

func showTokens(t *testing.T, warmup string) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--show-tokens", "--warmup", warmup, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// One line an arrival: chunks read at once (on a loaded machine two of
	// the server's 2 ms gaps can close so) are one line covering their
	// tokens, with one rate; never "inf".
	lines := regexp.MustCompile(`(?m)^\s+(\d+)(?:-(\d+))?\s+"((?: hi)+)"\s+(\S+)(  \(\d+ chunks in one read\))?$`).FindAllStringSubmatch(out, -1)
	if len(lines) == 0 || lines[0][4] != "(first)" {
		t.Fatalf("token lines %q:\n%s", lines, out)
	}
	covered := 0
	for i, l := range lines {
		from, _ := strconv.Atoi(l[1])
		to := from
		if l[2] != "" {
			to, _ = strconv.Atoi(l[2])
		}
		if from != covered+1 || strings.Count(l[3], " hi") != to-from+1 {
			t.Errorf("line %d covers tokens %d-%d with %q after %d tokens", i, from, to, l[3], covered)
		}
		covered = to
		if i > 0 && !regexp.MustCompile(`^\d+\.\d$`).MatchString(l[4]) {
			t.Errorf("instant TPS column: %q", l[4])
		}
	}
	if covered != 5 || strings.Contains(out, "inf") {
		t.Errorf("%d tokens shown:\n%s", covered, out)
	}
	if !strings.Contains(out, "average TPS") || !strings.Contains(out, "Generated tokens: 5") {
		t.Errorf("no summary:\n%s", out)
	}
}

// TestChunksReadAtOnce: chunks that come in one read showed "inf" instant
// TPS, went into ITL as zero gaps, and went unreported. They are one
// arrival: one line, one rate over its tokens, and the report tells the
// share of chunks that came batched.
func TestChunksReadAtOnce(t *testing.T) {
	batching := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := "data: {\"choices\":[{\"delta\":{\"content\":\" hi\"}}]}\n\n"
		fmt.Fprint(w, chunk)
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond) // two reads apart (a lower bound only)
		fmt.Fprint(w, chunk+chunk+"data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
	}))
	defer batching.Close()
	code, out, errs := cli(t, "run", "--url", batching.URL, "--model", "m", "--max-tokens", "3", "--show-tokens")
	if code != 0 || !strings.Contains(out, "(2 chunks in one read)") || strings.Contains(out, "inf") {
		t.Fatalf("exit %d %s:\n%s", code, errs, out)
	}
	// ITL: the second arrival's gap shared by its two tokens, so two
	// equal samples and no zero (the gap itself is the client's, which may
	// be shorter than the server's sleep if the first read came late)
	_, out, _ = cli(t, "run", "--url", batching.URL, "--model", "m", "--max-tokens", "3", "--requests", "1", "--format", "json", "-q")
	var rep struct {
		Steps []struct {
			ITL struct {
				Min   float64 `json:"min"`
				Max   float64 `json:"max"`
				Count int     `json:"count"`
			} `json:"itl_ms"`
			Chunks  int `json:"chunks"`
			Batched int `json:"batched_chunks"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Steps) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	st := rep.Steps[0]
	if st.ITL.Count != 2 || st.ITL.Min <= 0 || st.ITL.Min != st.ITL.Max || st.Chunks != 3 || st.Batched != 1 {
		t.Errorf("ITL %+v, %d of %d chunks batched; want 2 equal samples above 0 ms, 1 of 3", st.ITL, st.Batched, st.Chunks)
	}
}

// TestRateInf: vLLM's --request-rate inf, every request at once, up to
// --concurrency when it is given.
func TestRateInf(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{{nil, 6}, {[]string{"--concurrency", "2"}, 2}} {
		args := append([]string{"run", "--engine-model", "tiny", "--rate", "inf", "--requests", "6", "--max-tokens", "4", "--format", "json", "-q"}, tc.args...)
		code, out, errs := cli(t, args...)
		var rep struct {
			Steps []struct {
				Concurrency int     `json:"concurrency"`
				Rate        float64 `json:"rate"`
				Requests    struct{ Completed int }
			} `json:"steps"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Steps) != 1 {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		if s := rep.Steps[0]; s.Concurrency != tc.want || s.Rate != 0 || s.Requests.Completed != 6 {
			t.Errorf("%v: %+v, want concurrency %d, closed loop, 6 completed", args, s, tc.want)
		}
	}
}

// TestBurstiness: vLLM's --burstiness runs gamma arrivals at the asked
// rate (their statistics are load's tests).
func TestBurstiness(t *testing.T) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--rate", "100", "--burstiness", "0.5", "--requests", "20", "--max-tokens", "2", "--format", "json", "-q")
	var rep struct {
		Steps []struct {
			Rate     float64 `json:"rate"`
			Requests struct{ Completed int }
		} `json:"steps"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Steps) != 1 || rep.Steps[0].Rate != 100 || rep.Steps[0].Requests.Completed != 20 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
}

func TestWorkloads(t *testing.T) {
	srv := server(t)
	prompts := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(prompts, []byte(`{"prompt":"one","max_tokens":3}`+"\n"+`{"messages":[{"role":"user","content":"two"}],"max_tokens":4}`+"\n"), 0o644)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--prompts", prompts, "--requests", "4", "--format", "json", "-q")
	if code != 0 || !strings.Contains(out, `"output_tokens": 14`) {
		t.Fatalf("prompts file: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = cli(t, "run", "--url", srv.URL, "--model", "m", "--input-tokens", "50", "--output-tokens", "6", "--requests", "3", "--format", "json", "-q")
	if code != 0 || !strings.Contains(out, `"output_tokens": 18`) {
		t.Fatalf("synthetic: exit %d\n%s%s", code, out, errs)
	}
	for _, bad := range [][]string{
		{"run", "--url", srv.URL, "--model", "m", "--prompts", prompts, "--input-tokens", "5"},
		{"run", "--url", srv.URL, "--model", "m", "--prefix-tokens", "5"},
		{"run", "--url", srv.URL, "--model", "m", "--input-tokens", "-5"},
	} {
		if code, _, _ := cli(t, bad...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--prompts", filepath.Join(t.TempDir(), "none")); code != exitUsage || !strings.Contains(errs, "opening prompts") {
		t.Errorf("missing prompts file: exit %d %s", code, errs)
	}
}

func TestFindMax(t *testing.T) {
	srv := server(t) // every stream at the same pace: targets hold at any concurrency
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--find-max", "--find-max-limit", "8", "--slo", "request_tps=10", "--max-tokens", "5", "-q")
	if code != 0 || !strings.Contains(out, "Highest concurrency meeting every target: 8") || !strings.Contains(out, "c=4") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = cli(t, "run", "--url", srv.URL, "--model", "m", "--find-max", "--find-max-limit", "4", "--slo", "ttft=0.001ms", "--max-tokens", "3", "-q")
	if code != exitTargetsFail || !strings.Contains(out, "No concurrency met every target") {
		t.Fatalf("impossible target: exit %d\n%s", code, out)
	}
	if code, _, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--find-max"); code != exitUsage {
		t.Errorf("--find-max without targets: exit %d", code)
	}
}

// TestSearchSpace: --search-space over request rates, against a server
// whose every stream keeps the same pace: rates 8, 16 and 32 pass and
// the highest is the answer, each a step of the report at its rate; a
// budget of two runs measures two and says so; what a search cannot
// take is a usage error.
func TestSearchSpace(t *testing.T) {
	srv := server(t)
	base := []string{"run", "--url", srv.URL, "--model", "m", "--slo", "request_tps=10", "--max-tokens", "3", "--requests", "6", "-q"}
	code, out, errs := cli(t, append(base, "--search-space", "rate:8,32", "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep struct {
		BestRate float64 `json:"best_rate"`
		Note     string  `json:"note"`
		Steps    []struct {
			Rate float64 `json:"rate"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.BestRate != 32 || len(rep.Steps) != 3 || rep.Steps[0].Rate != 8 || rep.Steps[2].Rate != 32 ||
		!strings.Contains(rep.Note, "Highest rate meeting every target: 32 requests/s") {
		t.Errorf("best rate %v, steps %+v, note %q", rep.BestRate, rep.Steps, rep.Note)
	}
	code, out, errs = cli(t, append(base, "--search-space", "concurrency:1,64:int", "--search-max-iterations", "2")...)
	if code != 0 || !strings.Contains(out, "Highest concurrency meeting every target: 2") || !strings.Contains(out, "the budget of 2 runs was spent") {
		t.Errorf("a budget of two runs: exit %d\n%s%s", code, out, errs)
	}
	// two dimensions: the concurrency searched at the lowest rate (where
	// 20 requests a second saturate one user: more add no throughput),
	// then the rate at the concurrency found
	code, out, errs = cli(t, append(base, "--search-space", "concurrency:1,4", "--search-space", "rate:20,40", "--format", "json")...)
	var two struct {
		BestConcurrency int     `json:"best_concurrency"`
		BestRate        float64 `json:"best_rate"`
		Note            string  `json:"note"`
		Steps           []struct {
			Concurrency int     `json:"concurrency"`
			Rate        float64 `json:"rate"`
		} `json:"steps"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &two) != nil || two.BestConcurrency < 1 || two.BestRate != 40 ||
		!strings.Contains(two.Note, fmt.Sprintf("concurrency %d and rate 40 requests/s", two.BestConcurrency)) || !strings.Contains(two.Note, "rate: targets held up to the highest rate") {
		t.Errorf("two dimensions: exit %d\n%s%s", code, out, errs)
	}
	for _, st := range two.Steps {
		if st.Rate != 20 && st.Concurrency != two.BestConcurrency {
			t.Errorf("a probe at concurrency %d and rate %v: the rate is searched at the concurrency found", st.Concurrency, st.Rate)
		}
	}
	for _, bad := range [][]string{{"--search-space", "rate:0,8"}, {"--search-space", "temperature:0,1"}, {"--search-space", "rate:1,8", "--find-max"},
		{"--search-space", "rate:1,8", "--search-space", "rate:2,4"},
		{"--search-max-iterations", "3"}, {"--search-space", "rate:1,8", "--search-max-iterations", "-1"}} {
		if code, _, errs := cli(t, append(base, bad...)...); code != exitUsage || !strings.Contains(errs, "search") {
			t.Errorf("%v: exit %d %s", bad, code, errs)
		}
	}
}

// TestEveryStrategyWiresEveryOutput runs each strategy (a plain run, a
// concurrency sweep, a rate, a rate sweep, an auto rate sweep, find-max,
// a trace replay)
// with every output at once, and checks each output saw the whole run:
// --find-max once returned before the outputs were wired, and accepted
// --server-metrics, --metrics-addr, --live and --start-at to ignore them.
func TestEveryStrategyWiresEveryOutput(t *testing.T) {
	srv := server(t)
	traceFile := filepath.Join(t.TempDir(), "trace.jsonl")
	os.WriteFile(traceFile, []byte(`{"timestamp": 0, "input_length": 9, "output_length": 3}`+"\n"+`{"timestamp": 20, "input_length": 9, "output_length": 3}`+"\n"), 0o644)
	strategies := []struct {
		name string
		args []string
	}{
		{"plain", []string{"--requests", "2", "--max-tokens", "3"}},
		{"concurrency sweep", []string{"--sweep", "1,2", "--requests", "2", "--max-tokens", "3"}},
		{"rate", []string{"--rate", "50", "--requests", "3", "--max-tokens", "3"}},
		{"rate sweep", []string{"--sweep-rates", "40,80", "--requests", "3", "--max-tokens", "3"}},
		{"auto rate sweep", []string{"--sweep-rates", "auto:1", "--requests", "3", "--max-tokens", "3"}},
		{"find-max", []string{"--find-max", "--find-max-limit", "2", "--slo", "request_tps=10", "--max-tokens", "3"}},
		{"rate search", []string{"--search-space", "rate:40,80", "--requests", "3", "--slo", "request_tps=10", "--max-tokens", "3"}},
		{"trace replay", []string{"--trace", traceFile}},
	}
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			var mu sync.Mutex
			scrapes := 0
			metricsSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				mu.Lock()
				scrapes++
				mu.Unlock()
				fmt.Fprintln(w, "vllm:generation_tokens_total 0")
			}))
			defer metricsSrv.Close()
			dir := t.TempDir()
			records, out := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "report.json")
			startAt := time.Now().Add(300 * time.Millisecond).Truncate(time.Millisecond)
			args := append([]string{"run", "--url", srv.URL, "--model", "m",
				"--records", records, "--server-metrics", metricsSrv.URL + "/metrics", "--metrics-addr", "127.0.0.1:0",
				"--live", "--start-at", startAt.Format(time.RFC3339Nano), "--format", "json", "--out", out}, st.args...)
			code, _, errs := cli(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Steps []struct {
					Label    string `json:"label"`
					Requests struct {
						Completed int `json:"completed"`
					} `json:"requests"`
					Server *struct{} `json:"server"`
				} `json:"steps"`
			}
			if err := json.Unmarshal(data, &rep); err != nil || len(rep.Steps) == 0 {
				t.Fatalf("report %v: %s", err, data)
			}
			completed := 0
			for _, s := range rep.Steps {
				completed += s.Requests.Completed
				if s.Server == nil {
					t.Errorf("step %s has no server view", s.Label)
				}
			}
			mu.Lock()
			if scrapes < 2*len(rep.Steps) { // before and after each step
				t.Errorf("%d scrapes for %d steps", scrapes, len(rep.Steps))
			}
			mu.Unlock()
			measured := 0
			if err := readRecords(records, io.Discard, func(r *record.Record) {
				if !r.Warmup {
					measured++
				}
				if sent := time.Unix(0, r.Abs(r.Sent)); sent.Before(startAt) {
					t.Errorf("request %d sent at %s, before --start-at %s", r.Seq, sent.Format(time.StampMicro), startAt.Format(time.StampMicro))
				}
			}); err != nil {
				t.Fatal(err)
			}
			if measured != completed {
				t.Errorf("records hold %d measured requests, the report %d", measured, completed)
			}
			for _, want := range []string{"live metrics at http://127.0.0.1:", "requests: "} {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q (exporter, live view):\n%s", want, errs)
				}
			}
			// the live view's last frame counts every step's requests
			frames := strings.Split(errs, "in flight:")
			last := frames[len(frames)-1]
			for _, s := range rep.Steps {
				if want := fmt.Sprintf("requests: %d completed", s.Requests.Completed); !strings.Contains(last, want) {
					t.Errorf("live view's last frame lacks %q for step %s:\n%s", want, s.Label, last)
				}
			}
		})
	}
}

func TestTokenizerFlag(t *testing.T) {
	// a server that reports no usage: the tokenizer counts the text
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Word: " house"})
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--tokenizer", "cl100k", "--format", "json", "-q")
	if code != 0 || !strings.Contains(out, `"tokenizer": 1`) || !strings.Contains(out, `"output_tokens": 5`) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if code, _, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--tokenizer", "gpt2"); code != exitUsage {
		t.Errorf("unknown tokenizer: exit %d", code)
	}
	// a tokenizer.json: its vocabulary has none of " house"'s letters, so
	// each word is ▁ and one unknown token
	code, out, errs = cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--format", "json", "-q",
		"--tokenizer", filepath.Join("..", "..", "hftokenizer", "testdata", "tiny-tokenizer.json"))
	if code != 0 || !strings.Contains(out, `"output_tokens": 10`) {
		t.Fatalf("tokenizer.json: exit %d\n%s%s", code, out, errs)
	}
}

// TestLyingUsage: a server claiming 2e9 tokens over 8 chunks gave a system
// TPS of 3.7e12 and claimed an early end; now the claim is flagged and the
// run's figures come from what was streamed.
func TestLyingUsage(t *testing.T) {
	liar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < 8; i++ {
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\" word\"}}]}\n\n")
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"completion_tokens\":2000000000}}\n\ndata: [DONE]\n\n")
	}))
	defer liar.Close()
	records := filepath.Join(t.TempDir(), "r.jsonl")
	code, out, errs := cli(t, "run", "--url", liar.URL, "--model", "m", "--requests", "4", "--concurrency", "2", "--max-tokens", "8", "--records", records)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Total tokens: 32 generated") || !strings.Contains(out, "Usage not believed for 4 requests") || strings.Contains(out, "ended before their max_tokens") {
		t.Errorf("report:\n%s", out)
	}
	// the records file reads back (its counts are within a record's bounds)
	if code, _, errs := cli(t, "report", records); code != 0 {
		t.Errorf("report of the records: exit %d %s", code, errs)
	}
}

// TestServerIgnoringMaxTokens: a server that makes 41 tokens for
// --max-tokens 32 was reported without a word; the report says so.
func TestServerIgnoringMaxTokens(t *testing.T) {
	srv := scripted.New(scripted.Script{Tokens: 41, Usage: true})
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "3", "--max-tokens", "32", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Output lengths: 3 of 3 requests made more tokens than their max_tokens") {
		t.Errorf("report:\n%s", out)
	}
	code, out, _ = cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "3", "--max-tokens", "41", "-q")
	if code != 0 || strings.Contains(out, "more tokens than their max_tokens") {
		t.Errorf("a budget held to is reported as passed:\n%s", out)
	}
}

// TestNoStreamWithoutUsage: a whole response from a server that reports
// no usage counted as 1 token (40 times too few) and was claimed to end
// before its max_tokens. Its text is now counted with the default
// tokenizer, and the record says so.
func TestNoStreamWithoutUsage(t *testing.T) {
	quiet := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"message":{"role":"assistant","content":%q}}]}`, strings.Repeat(" word", 40))
	}))
	defer quiet.Close()
	records := filepath.Join(t.TempDir(), "r.jsonl")
	code, out, errs := cli(t, "run", "--url", quiet.URL, "--model", "m", "--no-stream", "--requests", "2", "--concurrency", "2", "--max-tokens", "40", "--records", records)
	if code != 0 || !strings.Contains(out, "Total tokens: 80 generated") || !strings.Contains(out, "tokenizer 2") || strings.Contains(out, "ended before") {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
	data, _ := os.ReadFile(records)
	if strings.Count(string(data), `"token_source":"tokenizer","tokenizer":"cl100k"`) != 2 {
		t.Errorf("records do not name the tokenizer:\n%s", data)
	}
}

// TestMaxErrorRate: a run that measured, but whose requests failed past
// --max-error-rate, exits 4 after its report; within it, 0 (a run with
// 88.5% of its requests failed exited 0).
func TestMaxErrorRate(t *testing.T) {
	h := scripted.NewHandler(func(seq int) scripted.Script {
		if seq%2 == 1 {
			return scripted.Script{Status: http.StatusServiceUnavailable}
		}
		return scripted.Script{Usage: true}
	}, false)
	srv := httptest.NewServer(h)
	defer srv.Close()
	args := []string{"run", "--url", srv.URL, "--model", "m", "--requests", "8", "--concurrency", "1", "--max-tokens", "4", "-q"}
	for _, c := range []struct {
		rate string
		code int
	}{{"1", 0}, {"0.6", 0}, {"0.5", 0}, {"0.2", exitUnusable}} {
		code, out, errs := cli(t, append(args, "--max-error-rate", c.rate)...)
		if code != c.code || !strings.Contains(out, "4 completed, 4 failed") {
			t.Errorf("--max-error-rate %s: exit %d, want %d\n%s%s", c.rate, code, c.code, out, errs)
		}
		if c.code == exitUnusable && !strings.Contains(errs, "4 of 8 requests failed (50.0%; --max-error-rate 0.2); mostly http_status: HTTP 503") {
			t.Errorf("--max-error-rate %s: stderr %q", c.rate, errs)
		}
	}
	if code, _, _ := cli(t, append(args, "--max-error-rate", "1.5")...); code != exitUsage {
		t.Errorf("--max-error-rate 1.5: exit %d, want %d", code, exitUsage)
	}
}

// TestMaxConcurrencyCapsInFlight: --max-concurrency is the cap on
// requests in flight, as in vLLM's benchmark (it bounded only --find-max,
// so --rate inf --max-concurrency 4 --requests 12 ran all 12 at once);
// the server's log says how many it held at once.
func TestMaxConcurrencyCapsInFlight(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 20 * time.Millisecond, Gap: 5 * time.Millisecond, Usage: true})
	defer srv.Close()
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--rate", "inf", "--max-concurrency", "4", "--requests", "12", "--max-tokens", "3", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// the most requests the server was answering at once: a request is
	// open from its receipt to its last event
	type span struct{ from, to time.Time }
	var spans []span
	for _, s := range srv.All() {
		spans = append(spans, span{s.Received, s.Events[len(s.Events)-1]})
	}
	most := 0
	for _, a := range spans {
		open := 0
		for _, b := range spans {
			if !b.from.After(a.from) && b.to.After(a.from) {
				open++
			}
		}
		most = max(most, open)
	}
	if len(spans) != 12 || most > 4 {
		t.Errorf("%d requests, at most %d open at once; want 12 and at most 4", len(spans), most)
	}
	for _, bad := range [][]string{
		{"--max-concurrency", "4", "--concurrency", "8"},
		{"--max-concurrency", "0"},
		{"--find-max", "--max-concurrency", "8", "--slo", "ttft=1s"},
	} {
		if code, _, _ := cli(t, append([]string{"run", "--url", srv.URL, "--model", "m"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

// TestSamplingFlagsReachTheServer: --top-p, --stop and --extra-body are in
// the body the server received, and a flag not given is not.
func TestSamplingFlagsReachTheServer(t *testing.T) {
	srv := server(t)
	recs := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "1", "--max-tokens", "3", "-q", "--records", recs,
		"--top-p", "0.5", "--stop", "END", "--extra-body", `{"priority": 2}`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recsRead := recordsOf(t, recs)
	if len(recsRead) != 1 {
		t.Fatalf("%d records", len(recsRead))
	}
	rec := recsRead[0]
	sent, ok := srv.Log(rec.ResponseID)
	if !ok {
		t.Fatalf("no log of %s", rec.ResponseID)
	}
	var body map[string]any
	json.Unmarshal(sent.Request, &body)
	if body["top_p"] != 0.5 || !reflect.DeepEqual(body["stop"], []any{"END"}) || body["priority"] != 2.0 {
		t.Errorf("the server received %s", sent.Request)
	}
	if _, there := body["top_k"]; there {
		t.Errorf("top_k sent unasked: %s", sent.Request)
	}
}

// TestMaxErrorsFlag: --max-errors stops the step and says so on stderr.
func TestMaxErrorsFlag(t *testing.T) {
	srv := scripted.New(scripted.Script{Status: 503})
	defer srv.Close()
	recs := filepath.Join(t.TempDir(), "r.jsonl")
	_, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "30", "--concurrency", "1", "--max-errors", "2", "-q", "--records", recs)
	if n := len(recordsOf(t, recs)); n != 2 || !strings.Contains(errs, "stopped early (--max-errors): 2 of its requests had failed") {
		t.Errorf("%d records; stderr:\n%s", n, errs)
	}
}

// TestMaxErrorRateFlag: --max-error-rate stops a step whose last 30
// finished requests failed over the share, says why, and exits 4 though
// the step's whole share is under it.
func TestMaxErrorRateFlag(t *testing.T) {
	srv := scripted.NewFunc(func(seq int) scripted.Script {
		if seq >= 60 {
			return scripted.Script{Status: 503}
		}
		return scripted.Script{Usage: true, Tokens: 2}
	})
	defer srv.Close()
	recs := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "500", "--concurrency", "1", "--max-tokens", "2", "--max-error-rate", "0.2", "-q", "--records", recs)
	// 60 answered, then the 7th failure puts 7 of the last 30 over a fifth
	if n := len(recordsOf(t, recs)); n != 67 || !strings.Contains(errs, "stopped early (--max-error-rate): 7 of its last 30 finished requests had failed") {
		t.Errorf("%d records; stderr:\n%s", n, errs)
	}
	if code != exitUnusable {
		t.Errorf("exit code %d, want %d", code, exitUnusable)
	}
}
