package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestOTelExport: --otel-url exports the run: a span for each request
// whose TTFT attribute is its record's, and the GenAI client metrics; a
// collector that is not there is a warning, not a failure; a bad address
// is a usage error.
func TestOTelExport(t *testing.T) {
	srv := server(t)
	collector, ttfts, metricNames := otlpCollector(t)
	defer collector.Close()

	records := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "6", "--concurrency", "2", "--max-tokens", "4",
		"--records", records, "--otel-url", collector.URL, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(records)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := record.NewReader(f, records)
	n := 0
	for {
		var r record.Record
		if rd.Next(&r) != nil {
			break
		}
		if r.Warmup {
			continue
		}
		n++
		if got, ok := ttfts[r.ResponseID]; !ok || got != int64(r.TTFT()) {
			t.Errorf("request %s: span TTFT %d (exported %v), record's %d", r.ResponseID, got, ok, int64(r.TTFT()))
		}
	}
	if n != 6 || len(ttfts) != 6 {
		t.Errorf("%d records, %d spans", n, len(ttfts))
	}
	for _, name := range []string{"gen_ai.client.operation.duration", "gen_ai.client.token.usage", "gen_ai.client.operation.time_to_first_chunk"} {
		if !metricNames[name] {
			t.Errorf("no %s among %v", name, metricNames)
		}
	}

	code, _, errs = cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "2", "--max-tokens", "2", "--otel-url", "127.0.0.1:1", "-q")
	if code != 0 || !strings.Contains(errs, "warning: 2 of 2 spans") {
		t.Errorf("an absent collector: exit %d\n%s", code, errs)
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--otel-url", "ftp://x"); code != exitUsage || !strings.Contains(errs, "--otel-url") {
		t.Errorf("a bad collector address: exit %d %s", code, errs)
	}
}

// otlpCollector is an OTLP/HTTP collector that keeps, of what it is sent,
// each span's TTFT by its response id and the metrics' names.
func otlpCollector(t *testing.T) (*httptest.Server, map[string]int64, map[string]bool) {
	var mu sync.Mutex
	ttfts := map[string]int64{} // response id -> TTFT, from the spans
	metricNames := map[string]bool{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						Attributes []struct {
							Key   string `json:"key"`
							Value struct {
								String string `json:"stringValue"`
								Int    string `json:"intValue"`
							} `json:"value"`
						} `json:"attributes"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
			ResourceMetrics []struct {
				ScopeMetrics []struct {
					Metrics []struct {
						Name string `json:"name"`
					} `json:"metrics"`
				} `json:"scopeMetrics"`
			} `json:"resourceMetrics"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("%s: %v", r.URL.Path, err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					var id string
					var ttft int64
					for _, a := range s.Attributes {
						switch a.Key {
						case "gen_ai.response.id":
							id = a.Value.String
						case "tpsbench.ttft_ns":
							ttft, _ = strconv.ParseInt(a.Value.Int, 10, 64)
						}
					}
					ttfts[id] = ttft
				}
			}
		}
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					metricNames[m.Name] = true
				}
			}
		}
		io.WriteString(w, "{}")
	}))
	return collector, ttfts, metricNames
}
