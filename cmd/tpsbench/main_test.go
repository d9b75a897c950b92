package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

func server(t *testing.T) *scripted.Server {
	t.Helper()
	srv := scripted.New(scripted.Script{TTFT: 10 * time.Millisecond, Gap: 2 * time.Millisecond, RoleChunk: true, Usage: true, Word: " hi", PromptTokens: 3})
	t.Cleanup(srv.Close)
	return srv
}

func TestSingleRequest(t *testing.T) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--prompt", "Explain AI", "--max-tokens", "20", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Generated tokens: 20", "Elapsed:", "TPS:", "Time to first token", "Time per output token", "Decode TPS"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errs != "" {
		t.Errorf("--quiet run wrote to stderr: %q", errs)
	}
}

func TestModelDefaultsToServers(t *testing.T) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--max-tokens", "3", "-q")
	if code != 0 || !strings.Contains(out, "Model: scripted") {
		t.Fatalf("exit %d, output %s %s", code, out, errs)
	}
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
		if format == "json" && again != out {
			t.Errorf("report of the records differs from the run's:\nrun:\n%s\nreport:\n%s", out, again)
		}
	}
	data, _ := os.ReadFile(recs)
	if n := strings.Count(string(data), "\n"); n != 20 {
		t.Errorf("records file has %d lines, want 20", n)
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

func TestTargetsSetExitCode(t *testing.T) {
	srv := server(t)
	code, out, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--slo", "ttft=1ms", "-q")
	if code != exitTargetsFail || !strings.Contains(out, "FAIL ttft") {
		t.Fatalf("exit %d, want 3:\n%s", code, out)
	}
	code, out, _ = cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--target-use", "chat", "-q")
	if code != 0 || !strings.Contains(out, "PASS request_tps") {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		{"run", "--url", "http://127.0.0.1:1", "--engine-model", "tiny"},
		{"run", "--engine-model", "tiny", "--engine-dtype", "q5_k"},
		{"run", "-q", "--engine-model", "tiny", "--model", "llama-3.1-8b.gguf"},
		{"run", "--engine-model", "tiny", "--engine-threads", "100000"},
		{"serve", "--model", "tiny", "--threads", "-1"},
		{"serve", "--model", "tiny", "--kv-cache-dtype", "q8_0"},
		{"run", "--engine-model", "tiny", "--engine-kv-cache-dtype", "fp8"},
		{"run", "--url", "http://127.0.0.1:1", "--engine-kv-cache-dtype", "f16"},
		{"model", "synth", "--shape", "huge", "-o", "/tmp/x.gguf"},
		{"model", "synth", "--dtype", "q3", "-o", "/tmp/x.gguf"},
		{"model", "info"},
		{"run", "--url", "localhost:8000"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--format", "pdf"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--slo", "speed=3"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--target-use", "gaming"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--sweep", "1,x"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--rate", "5"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--rate", "inf", "--duration", "1s"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--rate", "5", "--requests", "2", "--burstiness", "-1"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--rate", "5", "--requests", "2", "--arrivals", "constant", "--burstiness", "2"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--arrivals", "bursty", "--rate", "1", "--requests", "1"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--concurrency", "-1"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--concurrency", "0"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--max-tokens", "0"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--max-tokens", "1073741825"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--input-tokens", "2000000"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--input-tokens", "NaN"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--input-tokens", "5", "--output-tokens", "+Inf"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--show-tokens", "--concurrency", "4"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--header", "novalue"},
		{"run", "--target", "bad"},
		{"run", "--nope"},
		{"run", "--requests", "many"},
		{"report"},
		{"watch", "--every", "0", "records.jsonl"},
		{"frobnicate"},
	}
	for _, args := range cases {
		code, _, errs := cli(t, args...)
		if code != exitUsage || !strings.HasPrefix(errs, "tpsbench: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
}

// TestTargetSpecErrors: a --target missing a part says which part, and
// never shows the URL's credentials.
func TestTargetSpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"reason=http://user:secret@127.0.0.1:1/v1": "--target reason=http://127.0.0.1:1/v1: no #MODEL after the URL",
		"http://127.0.0.1:1#m":                     "no NAME= before the URL",
		"a=#m":                                     "--target a: no URL",
	} {
		code, _, errs := cli(t, "run", "--target", spec)
		if code != exitUsage || !strings.Contains(errs, want) || strings.Contains(errs, "secret") {
			t.Errorf("--target %s: exit %d %q; want %q", spec, code, errs, want)
		}
	}
}

func TestErrors(t *testing.T) {
	code, _, errs := cli(t, "report", filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != exitError || !strings.Contains(errs, "missing.jsonl") {
		t.Errorf("missing file: exit %d %q", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	// a bad line costs its record, counted, not the file's other records
	os.WriteFile(bad, []byte("{\"v\":1}\ngarbage\n{\"v\":1}\n"), 0o644)
	code, out, errs := cli(t, "report", bad)
	if code != 0 || !strings.Contains(errs, "1 lines skipped that are not valid records (2 read)") || !strings.Contains(errs, "bad.jsonl:2") ||
		!strings.Contains(out, "Total requests: 2 (") {
		t.Errorf("bad file: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// a record that does not hold together is skipped, never shown as a
	// completed request; a file of nothing else is refused
	crafted := filepath.Join(t.TempDir(), "crafted.jsonl")
	os.WriteFile(crafted, []byte(`{"v":1,"sent":0,"done":9,"chunks":[[-9200000000000000000,1]]}`+"\n"), 0o644)
	code, _, errs = cli(t, "report", crafted)
	if code != exitError || !strings.Contains(errs, "no valid record") || !strings.Contains(errs, "crafted.jsonl:1: record 0: chunk 0") {
		t.Errorf("report of a crafted record: exit %d, stderr %q", code, errs)
	}
	code, out, _ = cli(t, "watch", "--once", crafted)
	// (into a pipe or a file, not a terminal: no screen-clearing escapes)
	if code != 0 || !strings.Contains(out, "skipped 1 lines") || !strings.Contains(out, "crafted.jsonl:1: record 0: chunk 0") || strings.Contains(out, "1 completed") ||
		strings.Contains(out, "\x1b") {
		t.Errorf("watch --once of a crafted record: exit %d, stdout %q", code, out)
	}
	// a model name that is no file and no shape is a usage error, found
	// before an engine is started
	for _, args := range [][]string{{"run", "--engine-model", "nosuch"}, {"serve", "--model", t.TempDir()}} {
		code, _, errs = cli(t, args...)
		if code != exitUsage || !strings.Contains(errs, "neither a GGUF file nor a built-in shape") {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
	// A server's error body reaches stderr without its escape sequences.
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "\x1b]0;owned\x07\x1b[2Jbad", http.StatusInternalServerError)
	}))
	defer hostile.Close()
	code, _, errs = cli(t, "run", "--url", hostile.URL)
	if code != exitError || strings.ContainsAny(errs, "\x1b\x07") || !strings.Contains(errs, "owned") {
		t.Errorf("hostile server: exit %d %q", code, errs)
	}
	// A server that is not there: the run completes with failures counted
	// and reported, and exits 4: no figure of it is usable
	code, out, errs = cli(t, "run", "--url", "http://127.0.0.1:1", "--model", "m", "--requests", "3", "--concurrency", "3", "-q")
	if code != exitUnusable || !strings.Contains(out, "connect 3") || !strings.Contains(errs, "3 of 3 requests failed (100.0%; --max-error-rate 1); mostly connect") {
		t.Errorf("unreachable server: exit %d\n%s\n%s", code, out, errs)
	}
	// why they failed: in the report, and on stderr once as it happens
	_, out, errs = cli(t, "run", "--url", "http://127.0.0.1:1", "--model", "m", "--requests", "3", "--concurrency", "3")
	if !strings.Contains(out, "  3 connect: Post: dial tcp 127.0.0.1:1:") || strings.Count(errs, "a request failed (connect): Post: dial tcp") != 1 {
		t.Errorf("unreachable server, reasons:\nstdout %s\nstderr %s", out, errs)
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

func TestModelSynthAndInfo(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.gguf"), filepath.Join(dir, "b.gguf")
	// --preset is --shape's old name, still taken
	for i, flag := range []string{"--shape", "--preset"} {
		if code, _, errs := cli(t, "model", "synth", flag, "tiny", "--dtype", "q4_0", "-o", []string{a, b}[i]); code != 0 {
			t.Fatal(errs)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Error("same shape and seed wrote different bytes")
	}
	code, out, errs := cli(t, "model", "info", a)
	if code != 0 || !strings.Contains(out, "Q4_0") || !strings.Contains(out, "Bytes read per generated token") || !strings.Contains(out, "Layers        2") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = cli(t, "run", "--engine-model", a, "--max-tokens", "3", "-q")
	if code != 0 || !strings.Contains(out, "Model: a") {
		t.Fatalf("run on a GGUF file: exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.gguf")
	os.WriteFile(bad, []byte("GGUF\x03\x00\x00\x00garbage-garbage-garbage-garbage"), 0o644)
	if code, _, errs := cli(t, "model", "info", bad); code != exitError || !strings.Contains(errs, "offset") {
		t.Fatalf("bad file: exit %d %s", code, errs)
	}
}

func TestEstimate(t *testing.T) {
	// Llama 2 7B in F16: 13.48 GB of weights, 536,870,912 B of KV cache a
	// sequence of 1,024 tokens; an L4's 24 GB hold 19 sequences beside the
	// weights (10.52e9 / 536,870,912 = 19.6), an A100's 80 GB 123.
	code, out, errs := cli(t, "estimate", "--model", "llama-2-7b", "--dtype", "f16", "--hardware", "a100-80gb,l4", "--batch", "1,16,32")
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 11 && (f[0] == "a100-80gb" || f[0] == "l4") {
			rows++
			if want := map[bool]string{true: "NO", false: "yes"}[f[0] == "l4" && f[2] == "32"]; f[10] != want {
				t.Errorf("%s batch %s: fits %s, want %s", f[0], f[2], f[10], want)
			}
		}
	}
	if code != 0 || rows != 6 || !strings.Contains(out, "l4: its 24 GB hold the weights and at most 19 sequences of 1024 tokens") ||
		!strings.Contains(out, "a100-80gb: its 80 GB hold the weights and at most 123 sequences") || !strings.Contains(out, "Rows marked NO") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, bad := range [][]string{{"estimate", "--model", "gpt-9"}, {"estimate", "--hardware", "abacus"}, {"estimate", "--dtype", "q3"}, {"estimate", "--batch", "0"}} {
		if code, _, _ := cli(t, bad...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
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
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--prompts", filepath.Join(t.TempDir(), "none")); code != exitError || !strings.Contains(errs, "opening prompts") {
		t.Errorf("missing prompts file: exit %d %s", code, errs)
	}
}

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

func TestServerMetricsAgreeWithClient(t *testing.T) {
	code, out, errs := cli(t, "run", "--engine-model", "tiny", "--concurrency", "3", "--requests", "6", "--max-tokens", "9", "--server-metrics", "engine", "--format", "json", "-q")
	var rep struct {
		Steps []struct {
			Output int `json:"output_tokens"`
			Server struct {
				Gen float64 `json:"generation_tokens"`
			} `json:"server"`
		} `json:"steps"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Steps[0].Output != 54 || rep.Steps[0].Server.Gen != 54 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if code, _, _ := cli(t, "run", "--url", "http://127.0.0.1:1", "--model", "m", "--server-metrics", "engine"); code != exitUsage {
		t.Errorf("--server-metrics engine with --url: exit %d", code)
	}
}

func TestOllamaAPI(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/tags", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"models":[{"name":"tiny:latest"}]}`) })
	mux.HandleFunc("/api/chat", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 4; i++ {
			fmt.Fprint(w, `{"message":{"content":" x"},"done":false}`+"\n")
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, `{"message":{"content":""},"done":true,"eval_count":4,"prompt_eval_count":3,"eval_duration":1000000}`+"\n")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--api", "ollama", "--requests", "2", "--concurrency", "2", "-q")
	if code != 0 || !strings.Contains(out, "Model: tiny:latest") || !strings.Contains(out, "Total tokens: 8 generated, 6 prompt") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
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
		"--tokenizer", filepath.Join("..", "..", "tokencount", "testdata", "tiny-tokenizer.json"))
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

// TestTargetNamesUseCase: a target from --target-use says which use case
// it is, and its value reads as the tables do.
func TestTargetNamesUseCase(t *testing.T) {
	srv := server(t)
	_, out, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--target-use", "chat", "--slo", "ttft=1s")
	if !strings.Contains(out, "request_tps (chat) at least 30.00 tok/s") || !strings.Contains(out, "ttft at most 1000 ms") {
		t.Errorf("targets:\n%s", out)
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

// TestServerMetricsThatFail: every scrape failing printed the server's
// figures as zeros; the report now says the scrapes failed.
func TestServerMetricsThatFail(t *testing.T) {
	srv := server(t)
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	defer locked.Close()
	_, out, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "2", "--concurrency", "2", "--max-tokens", "3", "--server-metrics", locked.URL+"/metrics")
	if !strings.Contains(out, "every scrape of its metrics failed") || strings.Contains(out, "0 tokens generated") {
		t.Errorf("report:\n%s", out)
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

// TestFlagErrorsNameTheFlag: the CLI names the flag a library error is
// about.
func TestFlagErrorsNameTheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--url", "ftp://h", "--model", "m"}, "--url: "},
		{[]string{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--api", "grpc"}, "--api: "},
		{[]string{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--slo", "speed=3"}, "--slo: "},
		{[]string{"report", "x.jsonl", "--format", "pdf"}, "--format: "},
		{[]string{"report", "x.jsonl", "--convention", "llmperf9"}, "--convention: "},
		{[]string{"proxy", "--upstream", "ftp://h"}, "--upstream: "},
	} {
		code, _, errs := cli(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want the flag named", c.args, code, errs)
		}
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

// TestEstimateThisMachine: estimate of this machine measures each row's
// bandwidth at its step's bytes and says so; a shape is estimated in the
// engine's F32 formats.
func TestEstimateThisMachine(t *testing.T) {
	code, out, errs := cli(t, "estimate", "--model", "tiny", "--hardware", "this", "--batch", "1,4", "--context", "64")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := regexp.MustCompile(`(?m)^\s+this\s+(\d+)\s+[14]\s`).FindAllStringSubmatch(out, -1)
	if len(rows) != 2 || rows[0][1] == "0" || !strings.Contains(out, "weights as in the file") || !strings.Contains(out, "KV cache f32") ||
		!strings.Contains(out, "Bandwidth of this machine: the engine's own batch-1 products") {
		t.Errorf("estimate:\n%s", out)
	}
}
