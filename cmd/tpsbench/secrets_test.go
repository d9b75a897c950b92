package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestSecretsNeverLeak runs every command with a recognisable fake key
// (in the environment, in the URL's user info and query, in a header) and
// looks for it in everything tpsbench writes: stdout, stderr, records,
// and reports in every format.
func TestSecretsNeverLeak(t *testing.T) {
	const key = "sk-LEAKCHECK-7f3a9b"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("TPSBENCH_API_KEY", key)
	good := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true})
	defer good.Close()
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		w.Write([]byte(`{"error":{"message":"bad key"}}`))
	}))
	defer denied.Close()
	dir := t.TempDir()
	withKey := func(u string) string {
		return strings.Replace(u, "http://", "http://user:"+key+"@", 1) + "/v1?api_key=" + key
	}
	var outputs []string
	keep := func(args ...string) {
		_, out, errs := cli(t, args...)
		outputs = append(outputs, out, errs)
	}
	recs := filepath.Join(dir, "r.jsonl")
	keep("run", "--url", withKey(good.URL), "--model", "m", "--requests", "3", "--max-tokens", "3", "--records", recs, "--header", "X-Api-Key: "+key, "--format", "json")
	keep("run", "--url", withKey(denied.URL), "--model", "m", "--requests", "2", "--max-tokens", "3", "--records", filepath.Join(dir, "denied.jsonl"))
	keep("run", "--url", withKey("http://127.0.0.1:1"), "--model", "m", "--max-tokens", "3")
	keep("run", "--target", "a="+withKey(good.URL)+"#m", "--max-tokens", "3", "--format", "csv")
	keep("run", "--url", withKey(good.URL), "--max-tokens", "3") // model listing
	keep("run", "--url", "not a url "+key)
	for _, f := range []string{"text", "json", "csv", "markdown", "html"} {
		out := filepath.Join(dir, "report."+f)
		keep("report", recs, filepath.Join(dir, "denied.jsonl"), "--format", f, "--out", out)
	}
	keep("compare", recs, filepath.Join(dir, "denied.jsonl"))
	keep("estimate", "--model", "llama-2-7b", "--hardware", "l4", "--records", recs)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		outputs = append(outputs, string(b))
	}
	for i, o := range outputs {
		if strings.Contains(o, key) {
			t.Errorf("output %d leaks the key:\n%s", i, o)
		}
	}
	if len(files) < 7 {
		t.Errorf("only %d files written: %v", len(files), files)
	}
}
