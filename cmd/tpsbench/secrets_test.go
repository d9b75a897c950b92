package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/internal/syncbuf"
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

// TestSecretsNeverLeakFromServers runs the long-lived commands (serve,
// proxy) with the fake key as their required bearer token, sends them
// requests with and without it, and looks for it in what they print.
func TestSecretsNeverLeakFromServers(t *testing.T) {
	const key = "sk-LEAKCHECK-serve-41c"
	bin := binary(t)
	up := scripted.New(scripted.Script{Usage: true})
	defer up.Close()
	for _, args := range [][]string{
		{"serve", "--model", "tiny", "--addr", "127.0.0.1:0"},
		{"proxy", "--upstream", up.URL, "--listen", "127.0.0.1:0", "--records", filepath.Join(t.TempDir(), "p.jsonl")},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "TPSBENCH_API_KEY="+key, "TPSBENCH_PROXY_API_KEY="+key, "OPENAI_API_KEY="+key)
		var out, errs syncbuf.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// the address is in the first line on stderr
		var url string
		for i := 0; i < 100 && url == ""; i++ {
			time.Sleep(50 * time.Millisecond)
			if m := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(errs.String()); m != "" {
				url = m
			}
		}
		if url == "" {
			cmd.Process.Kill()
			t.Fatalf("%s printed no address: %s", args[0], errs.String())
		}
		for _, auth := range []string{"", "Bearer " + key, "Bearer wrong-" + key} {
			req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(`{"model":"tpsbench-tiny-f32","messages":[{"role":"user","content":"`+key+`"}],"max_tokens":2}`))
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			if resp, err := http.DefaultClient.Do(req); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if strings.Contains(string(b), key) && auth != "Bearer "+key {
					t.Errorf("%s echoed the key to a client without it: %s", args[0], b)
				}
			}
		}
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if strings.Contains(out.String()+errs.String(), key) {
			t.Errorf("%s printed the key:\n%s%s", args[0], out.String(), errs.String())
		}
	}
}
