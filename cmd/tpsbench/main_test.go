package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
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

func TestErrors(t *testing.T) {
	code, _, errs := cli(t, "report", filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != exitUsage || !strings.Contains(errs, "missing.jsonl") {
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
	if code != exitUsage || !strings.Contains(errs, "no valid record") || !strings.Contains(errs, "crafted.jsonl:1: record 0: chunk 0") {
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
		if code != exitUsage || !strings.Contains(errs, "neither a file nor a built-in shape") {
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
