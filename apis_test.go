package tpsbench_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// TestAPIsGroundTruth: every API tpsbench speaks, streamed and whole,
// against the scripted server speaking it: each chunk as the server's log
// has it (tokens, kind, never before it was sent), the counts and finish
// the API reports, each record's TPOT within the measured delays of the
// server's, and llama.cpp's own timings kept beside the client's.
func TestAPIsGroundTruth(t *testing.T) {
	const maxTokens, prompt, reasoning = 12, 7, 4
	cases := []struct {
		api            string
		stream         bool
		prompt, reason bool // the API reports prompt tokens; streams reasoning
	}{
		{client.APIChat, true, true, true},
		{client.APICompletions, true, true, false},
		{client.APIResponses, true, true, true},
		{client.APIResponses, false, true, true},
		{client.APILlamaCpp, true, true, false},
		{client.APILlamaCpp, false, true, false},
		{client.APITGI, true, false, false},
		{client.APITGI, false, false, false},
		{client.APISGLang, true, true, false},
		{client.APISGLang, false, true, false},
		{client.APIAnthropic, true, true, true},
		{client.APIAnthropic, false, true, false}, // a whole message's thinking and text are one chunk
	}
	for _, c := range cases {
		name := c.api
		if !c.stream {
			name += " whole"
		}
		t.Run(name, func(t *testing.T) {
			sc := scripted.Script{TTFT: 20 * time.Millisecond, Gap: 5 * time.Millisecond, PerEvent: 2, Usage: true, PromptTokens: prompt, Reasoning: reasoning}
			srv := scripted.New(sc)
			t.Cleanup(srv.Close)
			clock := record.NewClock()
			cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, API: c.api, Stream: c.stream, Concurrency: 2, Clock: clock, Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cl.Close)
			var recs []*record.Record
			res, err := tpsbench.Run(context.Background(), tpsbench.Plan{Clock: clock,
				Observer: tpsbench.ObserverFuncs{OnDone: func(r *record.Record) { recs = append(recs, r) }},
				Steps: []tpsbench.Step{{Label: name, Model: "scripted", Client: cl, Profile: load.Profile{Concurrency: 2, Requests: 4},
					Workload: workload.Fixed{Prompt: "Explain AI", MaxTokens: maxTokens}}}})
			if err != nil {
				t.Fatal(err)
			}
			r := run{clock: clock, srv: srv, res: res, recs: recs}
			delay := checkTiming(t, r, recordClock(r))
			for _, rec := range recs {
				if rec.OutputTokens != maxTokens || rec.FinishReason != "length" || rec.TokenSource != record.SourceUsage {
					t.Errorf("%s: %d tokens from %s, finish %q", rec.ResponseID, rec.OutputTokens, rec.TokenSource, rec.FinishReason)
				}
				if c.prompt && rec.PromptTokens != prompt {
					t.Errorf("%s: %d prompt tokens, the server's %d", rec.ResponseID, rec.PromptTokens, prompt)
				}
				wantReasoning := 0
				if c.reason {
					wantReasoning = reasoning
				}
				if rec.ReasoningTokens != wantReasoning {
					t.Errorf("%s: %d reasoning tokens, want %d", rec.ResponseID, rec.ReasoningTokens, wantReasoning)
				}
				log, _ := srv.Log(rec.ResponseID)
				for i, ch := range rec.Chunks {
					if c.stream && (ch.Kind == record.ChunkReasoning) != log.Reasons[i] {
						t.Errorf("%s chunk %d: kind %d, server's reasoning %v", rec.ResponseID, i, ch.Kind, log.Reasons[i])
					}
				}
				if c.api == client.APILlamaCpp && (rec.Server == nil || rec.Server.PromptEvalNS != int64(sc.TTFT) || rec.Server.EvalNS != int64(time.Duration(maxTokens-1)*sc.Gap)) {
					t.Errorf("%s: llama.cpp's timings %+v", rec.ResponseID, rec.Server)
				}
				if !c.stream {
					continue
				}
				server := float64(log.Events[len(log.Events)-1].Sub(log.Events[0])) / float64(rec.OutputTokens-1)
				got, ok := rec.TPOT()
				if bound := float64(delay[rec.ResponseID]) / float64(rec.OutputTokens-1); !ok || math.Abs(float64(got)-server) > bound+1 {
					t.Errorf("%s: TPOT %v, the server's %v, more than %v apart", rec.ResponseID, got, time.Duration(server), time.Duration(bound))
				}
			}
		})
	}
}
