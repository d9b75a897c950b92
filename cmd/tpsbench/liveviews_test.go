package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/internal/syncbuf"
	"github.com/tpsbench/tpsbench/monitor"
	"github.com/tpsbench/tpsbench/record"
)

// TestExporterWaitsForTheFinalScrape: closed the moment a run ended, the
// exporter lost the counts since the last scrape (Prometheus saw 424 of
// 433 requests at a 1 s scrape). A run something scraped keeps serving
// until a scrape after its end has been answered; the counts that scrape
// reads are the final ones. A run nothing scraped stops at once.
func TestExporterWaitsForTheFinalScrape(t *testing.T) {
	start := func(t *testing.T) (*exporterObserver, *syncbuf.Buffer, string) {
		var stderr syncbuf.Buffer
		o := &exporterObserver{Exporter: monitor.NewExporter(), addr: "127.0.0.1:0", linger: time.Hour, ctx: context.Background(), stderr: &stderr}
		if err := o.Start(); err != nil {
			t.Fatal(err)
		}
		url := regexp.MustCompile(`http://\S+/metrics`).FindString(stderr.String())
		if url == "" {
			t.Fatalf("no URL in %q", stderr.String())
		}
		return o, &stderr, url
	}
	scrape := func(t *testing.T, url string) string {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	request := func(o *exporterObserver) {
		r := &record.Record{Model: "m", Step: "s", First: 1e6, Last: 2e6, OutputTokens: 2}
		o.Sent(r)
		o.Done(r)
	}

	t.Run("scraped", func(t *testing.T) {
		o, stderr, url := start(t)
		request(o)
		scrape(t, url)
		request(o) // after the last scrape of the run
		o.Flush()
		stopped := make(chan struct{})
		go func() { o.Stop(); close(stopped) }()
		select {
		case <-stopped:
			t.Fatal("stopped before the final counts were scraped")
		case <-time.After(50 * time.Millisecond):
		}
		final := scrape(t, url)
		<-stopped
		if !strings.Contains(final, `tpsbench_requests_total{gen_ai_request_model="m",outcome="ok",step="s"} 2`) {
			t.Errorf("the last scrape did not see both requests:\n%s", final)
		}
		if !strings.Contains(stderr.String(), "--metrics-linger") {
			t.Errorf("no word of the wait: %q", stderr.String())
		}
	})
	t.Run("never scraped", func(t *testing.T) {
		o, _, _ := start(t)
		request(o)
		o.Flush()
		o.Stop() // returns without waiting an hour
	})
	t.Run("interrupted", func(t *testing.T) {
		o, _, url := start(t)
		ctx, cancel := context.WithCancel(context.Background())
		o.ctx = ctx
		scrape(t, url)
		request(o)
		o.Flush()
		cancel()
		o.Stop()
	})
}

// TestLiveIntoAFile: --live with stderr not a terminal draws its view
// once, when the run ends, says why, and writes no screen escapes
// (redrawn every half second it filled a file with views).
func TestLiveIntoAFile(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true, TTFT: time.Millisecond, Gap: 50 * time.Millisecond})
	defer srv.Close()
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--live", "--requests", "4", "--concurrency", "2", "--max-tokens", "30")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := strings.Count(errs, "tpsbench run "); n != 1 || !strings.Contains(errs, "stderr is not a terminal") || strings.Contains(errs, "\x1b") {
		t.Errorf("%d views drawn:\n%q", n, errs)
	}
}
