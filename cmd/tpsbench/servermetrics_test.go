package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

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
