package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	"github.com/tpsbench/tpsbench/internal/promcheck"
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
	// and one the upstream refuses, for the dashboard's errors panel
	if resp, _ := post(t, proxyURL+"/v1/chat/completions", `{"model":"m","max_tokens":"many"}`, nil); resp.StatusCode < 400 {
		t.Fatalf("a budget of \"many\" was answered %s", resp.Status)
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
		if r.OK() {
			n++
			tokens += r.OutputTokens
		}
	}
	if n != 20 || tokens != 140 {
		t.Fatalf("records: %d requests, %d tokens", n, tokens)
	}
	var gotTokens, gotUsage, gotTTFT float64
	for {
		gotTokens, _ = promQuery(base, `sum(tpsbench_output_tokens_total)`)
		gotUsage, _ = promQuery(base, `sum(gen_ai_client_token_usage_sum{gen_ai_token_type="output"})`)
		gotTTFT, _ = promQuery(base, `sum(gen_ai_client_operation_time_to_first_chunk_seconds_count)`)
		if int(gotTokens) == tokens && int(gotUsage) == tokens && int(gotTTFT) == n {
			break
		}
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatalf("Prometheus has %v output tokens (%v by usage) and %v TTFT observations; the records %d and %d", gotTokens, gotUsage, gotTTFT, tokens, n)
		}
		time.Sleep(500 * time.Millisecond)
	}
	resp, err := http.Get(proxyURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	promcheck.Lint(t, body, nil)
	dashboardAnswers(t, base, "tpsbench", time.Now().Add(30*time.Second))
}

// dashboardAnswers runs every query of the Grafana dashboard against
// Prometheus, for the job given, and fails on any that errs or selects
// no series: a renamed metric or label leaves a panel empty, silently.
func dashboardAnswers(t *testing.T, base, job string, deadline time.Time) {
	t.Helper()
	data, err := os.ReadFile("../deploy/grafana/tpsbench.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr, LegendFormat string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	queries := 0
	for _, p := range dash.Panels {
		for _, q := range p.Targets {
			queries++
			expr := strings.ReplaceAll(q.Expr, "$job", job)
			// a rate needs two scrapes after the traffic
			_, err := promQuery(base, expr)
			for err != nil && time.Now().Before(deadline) {
				time.Sleep(500 * time.Millisecond)
				_, err = promQuery(base, expr)
			}
			if err != nil {
				t.Errorf("panel %q, %s: %v", p.Title, expr, err)
			}
		}
	}
	if queries == 0 {
		t.Fatal("no queries in the dashboard")
	}
}
