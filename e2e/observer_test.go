package e2e_test

import (
	"context"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/monitor"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// TestLiveCountingDuringAStream: /metrics had no output token counter
// until a request ended. Observers now see every chunk as it is read: the
// exporter's counter moves while the stream is still under way (it cannot
// have ended: the server paces 300 tokens 3 ms apart), every chunk is
// seen before its request's end, and the final count matches the record.
func TestLiveCountingDuringAStream(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: 3 * time.Millisecond, Usage: true})
	defer srv.Close()
	clock := record.NewClock()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 1, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	exp := monitor.NewExporter()
	chunks, chunksAtDone := 0, -1
	var final *record.Record
	plan := tpsbench.Plan{Clock: clock, Steps: []tpsbench.Step{{Label: "s", Model: "m", Client: cl,
		Profile: load.Profile{Shape: load.Users{Count: 1}, Requests: 1}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 300}}},
		Observer: tpsbench.Observers{
			tpsbench.ObserverFuncs{OnSend: exp.Sent, OnChunk: exp.Chunk, OnDone: exp.Observe},
			tpsbench.ObserverFuncs{
				OnChunk: func(*record.Record, int) { chunks++ },
				OnDone:  func(r *record.Record) { chunksAtDone, final = chunks, r },
			},
		}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := tpsbench.Run(context.Background(), plan); err != nil {
			t.Error(err)
		}
	}()
	output := regexp.MustCompile(`tpsbench_output_tokens_total\{gen_ai_request_model="m",step="s"\} (\d+)`)
	cumulative := regexp.MustCompile(`tpsbench_output_tokens_per_second_cumulative ([0-9.e+]+)`)
	var tps float64
	scrape := func() int {
		rec := httptest.NewRecorder()
		exp.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		if m := cumulative.FindStringSubmatch(rec.Body.String()); m != nil {
			tps, _ = strconv.ParseFloat(m[1], 64)
		}
		if m := output.FindStringSubmatch(rec.Body.String()); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
		return 0
	}
	for scrape() == 0 {
		select {
		case <-done:
			t.Fatal("the output token counter stayed at 0 until the request ended")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if tps <= 0 {
		t.Errorf("cumulative TPS %v while tokens streamed", tps)
	}
	<-done
	if chunks != 300 || chunksAtDone != 300 || final.OutputTokens != 300 || final.Streamed != 300 {
		t.Errorf("%d chunks seen, %d before the end; record %d tokens, %d streamed", chunks, chunksAtDone, final.OutputTokens, final.Streamed)
	}
	if got := scrape(); got != 300 {
		t.Errorf("output counter %d after the request, want 300", got)
	}
}

// TestZeroPlanSharesTheClientsClock: a plan and a client made separately
// had two clocks, and the records' client lag was their difference (301
// ms where the truth was under 1 ms). Scheduled stamps now come from the
// client's clock: none lies before the run began.
func TestZeroPlanSharesTheClientsClock(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true})
	defer srv.Close()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	time.Sleep(50 * time.Millisecond) // the plan's clock would start later than the client's
	began := cl.Clock().Now()
	var recs []*record.Record
	plan := tpsbench.Plan{Steps: []tpsbench.Step{{Label: "s", Model: "m", Client: cl,
		Profile: load.Profile{Shape: load.Users{Count: 2}, Requests: 4}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 3}}},
		Observer: tpsbench.ObserverFuncs{OnDone: func(r *record.Record) { recs = append(recs, r) }}}
	if _, err := tpsbench.Run(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Scheduled < began || r.Sent < r.Scheduled {
			t.Errorf("record %d: scheduled %d before the run began at %d, or sent %d before it", r.Seq, r.Scheduled, began, r.Sent)
		}
	}
}
