package e2e_test

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
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
				Steps: []tpsbench.Step{{Label: name, Model: "scripted", Client: cl, Profile: load.Profile{Shape: load.Users{Count: 2}, Requests: 4},
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
				if !ok && rec.Chunks[0].At == rec.Chunks[len(rec.Chunks)-1].At {
					// a machine busy past the response's 16 ms had the
					// client read every event in one read: one arrival,
					// no TPOT to compare (the delays above hold it)
					continue
				}
				if bound := float64(delay[rec.ResponseID]) / float64(rec.OutputTokens-1); !ok || math.Abs(float64(got)-server) > bound+1 {
					t.Errorf("%s: TPOT %v, the server's %v, more than %v apart", rec.ResponseID, got, time.Duration(server), time.Duration(bound))
				}
			}
		})
	}
}

// TestSamplingReachesTheServer: the sampling parameters and the extra
// body fields a run sets reach each server as its API names them (what the
// scripted server received), and those an API does not take are left out.
func TestSamplingReachesTheServer(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	k := 20
	sampling := client.Sampling{TopP: f(0.9), MinP: f(0.05), FrequencyPenalty: f(0.1), PresencePenalty: f(0.2), RepetitionPenalty: f(1.1), TopK: &k, Stop: []string{"END"}}
	srv := scripted.New(scripted.Script{Usage: true, Tokens: 3})
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		api, under string
		want       map[string]any // the fields under `under` (the body when "")
		absent     []string
	}{
		{client.APIChat, "", map[string]any{"top_p": 0.9, "top_k": 20.0, "min_p": 0.05, "frequency_penalty": 0.1, "presence_penalty": 0.2, "repetition_penalty": 1.1, "stop": []any{"END"}}, nil},
		{client.APICompletions, "", map[string]any{"top_p": 0.9, "repetition_penalty": 1.1, "stop": []any{"END"}}, nil},
		{client.APIResponses, "", map[string]any{"top_p": 0.9, "top_k": 20.0}, nil},
		{client.APILlamaCpp, "", map[string]any{"top_p": 0.9, "min_p": 0.05, "repeat_penalty": 1.1, "stop": []any{"END"}}, []string{"repetition_penalty"}},
		{client.APITGI, "parameters", map[string]any{"top_p": 0.9, "top_k": 20.0, "repetition_penalty": 1.1, "frequency_penalty": 0.1, "stop": []any{"END"}}, []string{"min_p", "presence_penalty"}},
		{client.APISGLang, "sampling_params", map[string]any{"top_p": 0.9, "min_p": 0.05, "presence_penalty": 0.2, "stop": []any{"END"}}, nil},
		{client.APIAnthropic, "", map[string]any{"top_p": 0.9, "top_k": 20.0, "stop_sequences": []any{"END"}}, []string{"stop", "min_p", "frequency_penalty", "presence_penalty", "repetition_penalty"}},
	} {
		cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, API: c.api, Stream: true, Sampling: sampling,
			Extra: map[string]any{"priority": 3}, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var rec record.Record
		cl.Do(context.Background(), &client.Request{Model: "m", Prompt: "p", MaxTokens: 3}, &rec)
		cl.Close()
		sent, ok := srv.Log(rec.ResponseID)
		if rec.Error != nil || !ok {
			t.Fatalf("%s: %v (logged %v)", c.api, rec.Error, ok)
		}
		var body map[string]any
		if err := json.Unmarshal(sent.Request, &body); err != nil {
			t.Fatalf("%s: %v", c.api, err)
		}
		fields := body
		if c.under != "" {
			fields, _ = body[c.under].(map[string]any)
		}
		for name, want := range c.want {
			if got := fields[name]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s %v, want %v (body %s)", c.api, name, got, want, sent.Request)
			}
		}
		for _, name := range c.absent {
			if _, there := fields[name]; there {
				t.Errorf("%s: %s sent, which the API does not take (body %s)", c.api, name, sent.Request)
			}
		}
		if body["priority"] != 3.0 {
			t.Errorf("%s: the extra field is not in the body %s", c.api, sent.Request)
		}
	}
}
