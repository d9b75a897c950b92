package tpsbench_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/trace"
	"github.com/tpsbench/tpsbench/workload"
)

// Measure a server from Go: a client for its API, a plan of steps (load
// profile and workload), and Run. The summary holds every figure of a
// step; an Observer sees requests and chunks as they happen.
func ExampleRun() {
	srv := scripted.New(scripted.Script{TTFT: 5e6, Gap: 1e6, Usage: true}) // any OpenAI-compatible URL
	defer srv.Close()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 4})
	if err != nil {
		panic(err)
	}
	defer cl.Close()
	res, err := tpsbench.Run(context.Background(), tpsbench.Plan{Steps: []tpsbench.Step{{
		Label: "c=4", Model: "m", Client: cl,
		Profile:  load.Profile{Shape: load.Users{Count: 4}, Requests: 8},
		Workload: workload.Fixed{Prompt: "Explain AI", MaxTokens: 20},
	}}})
	if err != nil {
		panic(err)
	}
	s := res.Steps[0]
	// what a loaded machine cannot change: the counts, and a TTFT no
	// shorter than the server's own (how many answers had a TPOT depends
	// on whether the client read any answer's chunks in one go)
	fmt.Printf("%s: %d requests, %d tokens, TTFT at least the server's 5 ms: %v\n", s.Label, s.Requests.Completed, s.OutputTokens, s.TTFT.Min >= 5)
	// Output: c=4: 8 requests, 160 tokens, TTFT at least the server's 5 ms: true
}

// Report a records file from Go: read it with record.Reader (the checks
// every command applies) and add each record to metrics.Steps.
func ExampleRun_report() {
	file := `{"v":2,"step":"s","t0":0,"sent":0,"first":100000000,"last":300000000,"done":300000000,"chunks":[[100000000,1],[200000000,1],[300000000,1]],"output_tokens":3,"token_source":"usage","usage_tokens":3}
{"v":2,"step":"s","seq":1,"t0":0,"sent":0,"first":100000000,"last":300000000,"done":300000000,"chunks":[[100000000,1],[200000000,1],[300000000,1]],"output_tokens":3,"token_source":"usage","usage_tokens":3}
`
	steps := metrics.NewSteps(metrics.Targets{})
	rd := record.NewReader(strings.NewReader(file), "records.jsonl")
	var r record.Record
	for rd.Next(&r) == nil {
		steps.Add(&r)
	}
	s := steps.Summaries()[0]
	fmt.Printf("system TPS %.0f, TTFT %.0f ms, TPOT %.0f ms\n", s.SystemTPS, s.TTFT.Mean, s.TPOT.Mean)
	// Output: system TPS 20, TTFT 100 ms, TPOT 100 ms
}

// Run the embedded engine in process: a built-in shape (or a GGUF path) loads a
// model, its scheduler and an OpenAI-compatible handler, served here by
// httptest (Serve listens on a port).
func ExampleRun_engine() {
	e, err := engine.Load(engine.Options{Model: "tiny", Threads: 1})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	srv := httptest.NewServer(e.Handler)
	defer srv.Close()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 1, IgnoreEOS: true})
	if err != nil {
		panic(err)
	}
	defer cl.Close()
	var rec record.Record
	cl.Do(context.Background(), &client.Request{Model: e.Name, Prompt: "Once upon a time", MaxTokens: 5}, &rec)
	fmt.Println(e.Name, rec.OutputTokens, "tokens from", rec.TokenSource)
	// Output: tpsbench-tiny-f32 5 tokens from usage
}

// Replay a trace: each request at its time in the trace (here twice as
// fast), with a prompt of its input length and a budget of its output
// length; the replay is both the step's schedule and its workload, and
// the summary says how faithful it was.
func ExampleRun_replay() {
	srv := scripted.New(scripted.Script{TTFT: 2e6, Gap: 1e6, Usage: true})
	defer srv.Close()
	mooncake := `{"timestamp": 0, "input_length": 40, "output_length": 5, "hash_ids": [1]}
{"timestamp": 30, "input_length": 45, "output_length": 7, "hash_ids": [1]}
{"timestamp": 50, "input_length": 20, "output_length": 3, "hash_ids": [2]}
`
	rd, err := trace.NewReader(strings.NewReader(mooncake), "trace.jsonl", trace.Options{Speed: 2})
	if err != nil {
		panic(err)
	}
	replay := trace.NewReplay(rd, workload.Synthetic{Seed: 1})
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 3})
	if err != nil {
		panic(err)
	}
	defer cl.Close()
	res, err := tpsbench.Run(context.Background(), tpsbench.Plan{Steps: []tpsbench.Step{{
		Label: "replay", Model: "m", Client: cl, Profile: load.Profile{Shape: replay}, Workload: replay,
	}}})
	if err != nil || replay.Err() != nil {
		panic(fmt.Sprint(err, replay.Err()))
	}
	g := res.Steps[0].Replay
	fmt.Printf("%d requests replayed, %d tokens, outputs of the trace's length: %d of %d\n", g.Requests, res.Steps[0].OutputTokens, g.OutputExact, g.Completed)
	// Output: 3 requests replayed, 15 tokens, outputs of the trace's length: 3 of 3
}
