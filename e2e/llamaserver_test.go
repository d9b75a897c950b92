package e2e_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/synth"
	"github.com/tpsbench/tpsbench/internal/syncbuf"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// llamaServer starts llama.cpp's server (scripts/llamaserver builds it)
// on a synthesized 15m model with 4 slots and 2 threads, and returns its
// URL. In CI its absence is a failure: the test must run.
func llamaServer(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TPSBENCH_LLAMASERVER")
	if bin == "" {
		bin = filepath.Join("..", ".cache", "llamaserver", "llama-server")
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama.cpp's server %s is missing (scripts/llamaserver builds it): %v", bin, err)
		}
		t.Skipf("llama.cpp's server not built (run scripts/llamaserver): %v", err)
	}
	model := filepath.Join(t.TempDir(), "15m-f32.gguf")
	f, err := os.Create(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(f, synth.Shapes["15m"], gguf.F32, 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var log syncbuf.Buffer // written by exec's copying goroutine
	cmd := exec.Command(bin, "-m", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "-t", "2", "-np", "4", "-c", "2048")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(2 * time.Minute); ; {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("llama-server exited: %v\n%s", err, log.String())
		default:
		}
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server did not answer /health in 2 minutes\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLlamaServerMeasuredRight measures a real llama.cpp server on each
// API it speaks, streamed, four requests at a time: no request fails
// (it closes every kept-alive connection after its answer: a request
// sent on one goes out again, counted in retries), every count is the
// server's and exact (32 tokens asked with ignore_eos, one a chunk; the
// prompt's tokens as its /tokenize counts them), every TTFT holds the
// server's own prompt time (its timings, where the API sends them), and
// the span from the first token to the last is, in the median, the
// server's own generation time within 20%.
func TestLlamaServerMeasuredRight(t *testing.T) {
	url := llamaServer(t)
	const maxTokens, prompt = 32, "Explain how a large language model generates text, one token at a time."
	zero := 0.0
	for _, api := range []string{client.APIChat, client.APICompletions, client.APILlamaCpp, client.APIResponses} {
		t.Run(api, func(t *testing.T) {
			clock := record.NewClock()
			cl, err := client.NewHTTP(client.HTTPConfig{URL: url, API: api, Stream: true, Concurrency: 4, Clock: clock,
				Timeout: time.Minute, IgnoreEOS: true, Temperature: &zero})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			tk, err := client.NewTokenizer(context.Background(), url, api, "m", "")
			if err != nil {
				t.Fatal(err)
			}
			promptTokens, err := tk.Count(context.Background(), prompt)
			if err != nil {
				t.Fatal(err)
			}
			var recs []*record.Record
			_, err = tpsbench.Run(context.Background(), tpsbench.Plan{Clock: clock,
				Observer: tpsbench.ObserverFuncs{OnDone: func(r *record.Record) { recs = append(recs, r) }},
				Steps: []tpsbench.Step{{Label: api, Model: "m", Client: cl, Profile: load.Profile{Shape: load.Users{Count: 4}, Requests: 16},
					Workload: workload.Fixed{Prompt: prompt, MaxTokens: maxTokens}}}})
			if err != nil {
				t.Fatal(err)
			}
			var ratios []float64
			retries := 0
			for _, r := range recs {
				if !r.OK() {
					t.Errorf("request %d failed: %s: %s", r.Seq, r.Error.Kind, r.Error.Message)
					continue
				}
				retries += r.Retries
				if r.OutputTokens != maxTokens || r.TokenSource != record.SourceUsage || len(r.Chunks) != maxTokens {
					t.Errorf("request %d: %d tokens from %s in %d chunks, want %d from usage, one a chunk", r.Seq, r.OutputTokens, r.TokenSource, len(r.Chunks), maxTokens)
				}
				if r.PromptTokens != promptTokens {
					t.Errorf("request %d: %d prompt tokens, the server's /tokenize counts %d", r.Seq, r.PromptTokens, promptTokens)
				}
				if s := r.Server; s != nil {
					// the server's prompt time lies within the client's TTFT
					if ttft := r.First - r.Sent; ttft < s.PromptEvalNS {
						t.Errorf("request %d: TTFT %v is shorter than the server's prompt time %v", r.Seq, time.Duration(ttft), time.Duration(s.PromptEvalNS))
					}
					if s.EvalNS > 0 {
						ratios = append(ratios, float64(r.Last-r.First)/float64(s.EvalNS))
					}
				} else if api != client.APIResponses {
					t.Errorf("request %d: the server's timings were not kept", r.Seq)
				}
			}
			if len(recs) != 16 {
				t.Fatalf("%d records, want 16", len(recs))
			}
			if len(ratios) > 0 {
				slices.Sort(ratios)
				med := ratios[len(ratios)/2]
				t.Logf("first-to-last span over the server's generation time: median %.3f (%.3f to %.3f); %d retries", med, ratios[0], ratios[len(ratios)-1], retries)
				if med < 0.8 || med > 1.25 {
					t.Errorf("the client's first-to-last span is %.3f of the server's generation time in the median, want 0.8 to 1.25", med)
				}
			}
		})
	}
}
