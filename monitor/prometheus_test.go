package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// promQuery returns the scalar value of a PromQL instant query.
func promQuery(base, q string) (float64, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return 0, err
	}
	if len(out.Data.Result) == 0 {
		return 0, fmt.Errorf("no result")
	}
	s, _ := out.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}

// TestPrometheusScrapesTheProxy runs Debian's prometheus against a live
// proxy carrying real traffic and checks, through Prometheus's query API,
// that the token counter and the TTFT histogram agree with the records.
func TestPrometheusScrapesTheProxy(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("prometheus is not installed (the test command installs it)")
		}
		t.Skip("prometheus is not installed")
	}
	up := scripted.New(scripted.Script{TTFT: 5 * time.Millisecond, Gap: 2 * time.Millisecond, Usage: true})
	defer up.Close()
	dir := t.TempDir()
	recFile, _ := os.Create(filepath.Join(dir, "proxy.jsonl"))
	defer recFile.Close()
	p, err := NewProxy(up.URL, NewExporter(), record.NewWriter(recFile))
	if err != nil {
		t.Fatal(err)
	}
	stop, proxyURL, err := p.Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	promAddr := freePort(t)
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: tpsbench\n    static_configs:\n      - targets: ['%s']\n", strings.TrimPrefix(proxyURL, "http://"))), 0o644)
	cmd := exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr, "--log.level=warn")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	base := "http://" + promAddr
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := http.Get(base + "/-/ready"); err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("prometheus did not become ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
	cl, err := client.NewHTTP(client.HTTPConfig{URL: proxyURL, Stream: true, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < 20; i++ {
		var rec record.Record
		cl.Do(context.Background(), &client.Request{Model: "m", Prompt: "p", MaxTokens: 7}, &rec)
		if rec.Error != nil {
			t.Fatal(rec.Error)
		}
	}
	// The records file is the reference.
	time.Sleep(100 * time.Millisecond)
	f, _ := os.Open(filepath.Join(dir, "proxy.jsonl"))
	defer f.Close()
	rd := record.NewReader(f, "proxy.jsonl")
	var n, tokens int
	for {
		var r record.Record
		if rd.Next(&r) != nil {
			break
		}
		n++
		tokens += r.OutputTokens
	}
	if n != 20 || tokens != 140 {
		t.Fatalf("records: %d requests, %d tokens", n, tokens)
	}
	var gotTokens, gotTTFT float64
	for time.Now().Before(deadline.Add(30 * time.Second)) {
		gotTokens, _ = promQuery(base, `sum(gen_ai_client_token_usage_total{gen_ai_token_type="output"})`)
		if gotTokens == 0 {
			gotTokens, _ = promQuery(base, `sum(gen_ai_client_token_usage{gen_ai_token_type="output"})`)
		}
		gotTTFT, _ = promQuery(base, `sum(gen_ai_server_time_to_first_token_seconds_count)`)
		if int(gotTokens) == tokens && int(gotTTFT) == n {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("Prometheus has %v output tokens and %v TTFT observations; the records %d and %d", gotTokens, gotTTFT, tokens, n)
}
