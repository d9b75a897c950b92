package servermetrics

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const vllmText = `# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m",engine="0"} 100
vllm:generation_tokens_total{model_name="m",engine="1"} 20
vllm:prompt_tokens_total{model_name="m"} 7.5e1
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"} 3
vllm:time_to_first_token_seconds_sum{model_name="m"} 0.6
vllm:time_to_first_token_seconds_count{model_name="m"} 4
vllm:num_requests_running{model_name="m",note="a } in a label"} 3
weird_metric NaN
`

func TestParse(t *testing.T) {
	s, err := Parse(strings.NewReader(vllmText))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"vllm:generation_tokens_total": 120, "vllm:prompt_tokens_total": 75,
		"vllm:time_to_first_token_seconds_sum": 0.6, "vllm:num_requests_running": 3} {
		if s[name] != want {
			t.Errorf("%s = %v, want %v", name, s[name], want)
		}
	}
	if _, ok := s["vllm:time_to_first_token_seconds_bucket"]; ok {
		t.Error("buckets kept")
	}
	for _, bad := range []string{"m{a=\"1\" 2", "m", "m abc"} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestWatchDeltas(t *testing.T) {
	var gen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := gen.Load()
		fmt.Fprintf(w, "vllm:generation_tokens_total %d\nvllm:time_to_first_token_seconds_sum %g\nvllm:time_to_first_token_seconds_count %d\nvllm:num_requests_running %d\n",
			n, float64(n)*0.01, n/10, n/10)
	}))
	defer srv.Close()
	gen.Store(1000)
	s := &Scraper{URL: srv.URL}
	stop := s.Watch(context.Background(), 20*time.Millisecond)
	gen.Store(1500)
	time.Sleep(60 * time.Millisecond)
	gen.Store(1600)
	v := stop()
	// the first and the last scrape are certain; ticks between depend on
	// the scheduler
	if v.GenerationTokens != 600 || v.MaxRunning != 160 || v.Errors != 0 || v.Scrapes < 2 {
		t.Fatalf("%+v", v)
	}
	// TTFT: (16 - 10) s over (160 - 100) requests = 100 ms
	if v.TTFTMeanMS < 99.9 || v.TTFTMeanMS > 100.1 {
		t.Errorf("TTFT mean %v ms", v.TTFTMeanMS)
	}
}

// TestWatchEngineSteps: the engine's steps over a step, the tokens each
// took in, and the tokens each generated, from vLLM's histogram of tokens
// an iteration; a server without it gives none of them.
func TestWatchEngineSteps(t *testing.T) {
	var after atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gen, steps, tokens := 1000, 100, 2000
		if after.Load() {
			gen, steps, tokens = 1000+640, 100+20, 2000+20*40 // 20 steps of 40 tokens, 32 of them generated
		}
		fmt.Fprintf(w, "vllm:generation_tokens_total %d\nvllm:iteration_tokens_total_bucket{le=\"64.0\"} %d\nvllm:iteration_tokens_total_sum %d\nvllm:iteration_tokens_total_count %d\n", gen, steps, tokens, steps)
	}))
	defer srv.Close()
	stop := (&Scraper{URL: srv.URL}).Watch(context.Background(), time.Hour)
	after.Store(true)
	v := stop()
	if v.EngineSteps != 20 || v.StepTokensMean != 40 || v.GeneratedPerStep != 32 {
		t.Errorf("steps %v, tokens a step %v, generated a step %v; want 20, 40, 32", v.EngineSteps, v.StepTokensMean, v.GeneratedPerStep)
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "vllm:generation_tokens_total 7\n")
	}))
	defer plain.Close()
	v = (&Scraper{URL: plain.URL}).Watch(context.Background(), time.Hour)()
	if v.EngineSteps != 0 || v.StepTokensMean != 0 || v.GeneratedPerStep != 0 {
		t.Errorf("figures from a server without the histogram: %+v", v)
	}
}

// TestWatchWithoutInterval: a zero interval is a second, not a panic.
func TestWatchWithoutInterval(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "vllm:generation_tokens_total 5")
	}))
	defer srv.Close()
	v := (&Scraper{URL: srv.URL}).Watch(context.Background(), 0)()
	if v.Scrapes != 2 || v.Errors != 0 {
		t.Fatalf("%+v", v)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(vllmText)
	f.Fuzz(func(t *testing.T, s string) { _, _ = Parse(strings.NewReader(s)) })
}

// TestKeyProtectedMetrics: a /metrics behind an API key answered 401 to
// every scrape, and the view read as zeros. The scraper sends the run's
// headers, and a view without a successful scrape says so.
func TestKeyProtectedMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-1" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprintln(w, "vllm:generation_tokens_total 5")
	}))
	defer srv.Close()
	v := (&Scraper{URL: srv.URL}).Watch(context.Background(), time.Hour)()
	if v.Scrapes != 0 || v.Counted || !strings.Contains(v.LastError, "HTTP 401") {
		t.Errorf("without the key: %+v", v)
	}
	v = (&Scraper{URL: srv.URL, Header: http.Header{"Authorization": {"Bearer sk-1"}}}).Watch(context.Background(), time.Hour)()
	if v.Scrapes != 2 || !v.Counted || v.Errors != 0 {
		t.Errorf("with the key: %+v", v)
	}
}

// Values a report cannot hold, and counters that fall, are no count: a
// NaN counter lost the JSON report, a restart between scrapes gave
// -999,995 tokens generated and a negative TTFT.
func TestNonFiniteAndResetCounters(t *testing.T) {
	s, err := Parse(strings.NewReader("a NaN\nb +Inf\nc -Inf\nd 1e308\nd 1e308\ne 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 1 || s["e"] != 2 {
		t.Errorf("sample %v: want only e", s)
	}
	var scrape atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if scrape.Add(1) == 1 {
			fmt.Fprint(w, "vllm:generation_tokens_total 1000000\nvllm:time_to_first_token_seconds_sum 50\nvllm:time_to_first_token_seconds_count 100\nvllm:num_requests_running NaN\n")
			return
		}
		// restarted: its counters begin again
		fmt.Fprint(w, "vllm:generation_tokens_total 5\nvllm:time_to_first_token_seconds_sum 0.2\nvllm:time_to_first_token_seconds_count 1\nvllm:num_requests_running +Inf\n")
	}))
	defer srv.Close()
	v := (&Scraper{URL: srv.URL}).Watch(context.Background(), time.Hour)()
	if v.Counted || v.GenerationTokens != 0 || v.TTFTMeanMS != 0 || v.MaxRunning != 0 || v.Reset != "vllm:generation_tokens_total" {
		t.Errorf("view %+v", v)
	}
	if _, err := json.Marshal(v); err != nil {
		t.Error(err)
	}
}

// TestWatchSpeculativeDecoding: vLLM's speculative decoding counters over
// a step, worked by hand: 50 drafts of 150 tokens, 90 accepted: 60% of
// draft tokens accepted, 1 + 90/50 = 2.8 tokens a verification step.
func TestWatchSpeculativeDecoding(t *testing.T) {
	var after atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		drafts, tokens, accepted := 10, 30, 20
		if after.Load() {
			drafts, tokens, accepted = 60, 180, 110
		}
		fmt.Fprintf(w, "vllm:generation_tokens_total 5\nvllm:spec_decode_num_drafts_total{engine=\"0\"} %d\nvllm:spec_decode_num_draft_tokens_total{engine=\"0\"} %d\nvllm:spec_decode_num_accepted_tokens_total{engine=\"0\"} %d\n",
			drafts, tokens, accepted)
	}))
	defer srv.Close()
	stop := (&Scraper{URL: srv.URL}).Watch(context.Background(), time.Hour)
	after.Store(true)
	v := stop()
	if math.Abs(v.SpecAcceptance-0.6) > 1e-12 || math.Abs(v.SpecMeanLength-2.8) > 1e-12 {
		t.Errorf("acceptance %v, mean length %v; want 0.6 and 2.8", v.SpecAcceptance, v.SpecMeanLength)
	}
}

// TestWatchSGLangAcceptance: SGLang's acceptance gauges, one series a
// rank, are averaged over the ranks of a scrape and then over the step's
// scrapes (the one before the step left out). Scrape k serves lengths k
// and k+1 and rates 0.5 and 0.7, so the step's mean length is the mean of
// k+0.5 over the scrapes the server logged after the first, its rate 0.6.
func TestWatchSGLangAcceptance(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := served.Add(1) - 1
		fmt.Fprintf(w, "sglang:generation_tokens_total 5\n"+
			"sglang:spec_accept_length{tp_rank=\"0\"} %d\nsglang:spec_accept_length{tp_rank=\"1\"} %d\n"+
			"sglang:spec_accept_rate{tp_rank=\"0\"} 0.5\nsglang:spec_accept_rate{tp_rank=\"1\"} 0.7\n", k, k+1)
	}))
	defer srv.Close()
	stop := (&Scraper{URL: srv.URL}).Watch(context.Background(), 5*time.Millisecond)
	for served.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	v := stop()
	n := served.Load() - 1
	want := 0.0
	for k := int64(1); k <= n; k++ {
		want += float64(k) + 0.5
	}
	want /= float64(n)
	if math.Abs(v.SpecMeanLength-want) > 1e-9 || math.Abs(v.SpecAcceptance-0.6) > 1e-9 {
		t.Errorf("mean length %v, acceptance %v over %d scrapes; want %v and 0.6", v.SpecMeanLength, v.SpecAcceptance, n, want)
	}
	if s, err := Parse(strings.NewReader("sglang:spec_accept_length{r=\"0\"} 2\nsglang:spec_accept_length{r=\"1\"} 4\n")); err != nil || s["sglang:spec_accept_length"] != 6 {
		t.Errorf("the sum stays the sample's value: %v %v", s, err)
	} else if m, ok := s.mean("sglang:spec_accept_length"); !ok || m != 3 {
		t.Errorf("mean %v %v, want 3", m, ok)
	}
}

// TestWatchFirstTokenWaits: vLLM's queue and prefill times over a step,
// as means from their histograms' growth: 12 requests that queued 0.6 s
// and took 2.4 s from joining a batch to their first token together are
// 50 ms and 200 ms each; a server without them gives neither.
func TestWatchFirstTokenWaits(t *testing.T) {
	var after atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, queued, prefill := 100, 3.0, 9.0
		if after.Load() {
			n, queued, prefill = 112, 3.6, 11.4
		}
		fmt.Fprintf(w, "vllm:generation_tokens_total 5\nvllm:request_queue_time_seconds_sum %g\nvllm:request_queue_time_seconds_count %d\n"+
			"vllm:request_prefill_time_seconds_sum %g\nvllm:request_prefill_time_seconds_count %d\n", queued, n, prefill, n)
	}))
	defer srv.Close()
	stop := (&Scraper{URL: srv.URL}).Watch(context.Background(), time.Hour)
	after.Store(true)
	v := stop()
	if math.Abs(v.QueueMeanMS-50) > 1e-6 || math.Abs(v.PrefillMeanMS-200) > 1e-6 {
		t.Errorf("queued %v ms, prefill %v ms; want 50 and 200", v.QueueMeanMS, v.PrefillMeanMS)
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "vllm:generation_tokens_total 7\n")
	}))
	defer plain.Close()
	if v := (&Scraper{URL: plain.URL}).Watch(context.Background(), time.Hour)(); v.QueueMeanMS != 0 || v.PrefillMeanMS != 0 {
		t.Errorf("waits from a server without the histograms: %+v", v)
	}
}
