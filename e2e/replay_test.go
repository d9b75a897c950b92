package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/trace"
	"github.com/tpsbench/tpsbench/workload"
)

// TestReplayGroundTruth: a trace replayed twice as fast schedules every
// request at exactly its trace time over two; the server reads none
// before its time, and each answers with the trace's output length.
func TestReplayGroundTruth(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 5 * time.Millisecond, Gap: 2 * time.Millisecond, Usage: true})
	t.Cleanup(srv.Close)
	var b strings.Builder
	stamps := []int{0, 15, 15, 40, 41, 90, 130, 131, 200, 260}
	for i, ms := range stamps {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": [%d]}`+"\n", ms, 20+i, 3+i%4, i%3)
	}
	rd, err := trace.NewReader(strings.NewReader(b.String()), "t", trace.Options{Speed: 2})
	if err != nil {
		t.Fatal(err)
	}
	replay := trace.NewReplay(rd, workload.Synthetic{Seed: 1})
	clock := record.NewClock()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: len(stamps), Clock: clock, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	var recs []*record.Record
	_, err = tpsbench.Run(context.Background(), tpsbench.Plan{Clock: clock,
		Observer: tpsbench.ObserverFuncs{OnDone: func(r *record.Record) { recs = append(recs, r) }},
		Steps:    []tpsbench.Step{{Label: "replay", Model: "m", Client: cl, Profile: load.Profile{Shape: replay}, Workload: replay}}})
	if err != nil || replay.Err() != nil {
		t.Fatal(err, replay.Err())
	}
	if len(recs) != len(stamps) {
		t.Fatalf("%d records for %d trace lines", len(recs), len(stamps))
	}
	byLine := map[int]*record.Record{}
	for _, r := range recs {
		if r.Error != nil || r.Trace == nil {
			t.Fatalf("record %+v", r)
		}
		byLine[r.Trace.Line] = r
	}
	start := byLine[1].Scheduled
	for i, ms := range stamps {
		r := byLine[i+1]
		want := time.Duration(ms) * time.Millisecond / 2
		if got := time.Duration(r.Scheduled - start); got != want || r.Trace.Offset != int64(want) {
			t.Errorf("line %d scheduled %v after the first (trace %v), want %v", i+1, got, time.Duration(r.Trace.Offset), want)
		}
		log, ok := srv.Log(r.ResponseID)
		if !ok {
			t.Fatalf("no server log for line %d", i+1)
		}
		if sched := clock.Time(r.Scheduled); log.Received.Before(sched) {
			t.Errorf("line %d: the server read it %v before its time", i+1, sched.Sub(log.Received))
		}
		sent := 0
		for _, k := range log.Tokens {
			sent += k
		}
		if r.OutputTokens != 3+i%4 || sent != 3+i%4 || r.MaxTokens != 3+i%4 {
			t.Errorf("line %d: %d tokens made (server %d), budget %d; the trace's %d", i+1, r.OutputTokens, sent, r.MaxTokens, 3+i%4)
		}
	}
}
