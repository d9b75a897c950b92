package servermetrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"time"
)

// The names each figure goes by in the servers tpsbench knows: vLLM (and
// the tpsbench engine), SGLang, TGI.
var (
	genTokens    = []string{"vllm:generation_tokens_total", "sglang:generation_tokens_total", "tgi_request_generated_tokens_sum"}
	promptTokens = []string{"vllm:prompt_tokens_total", "sglang:prompt_tokens_total", "tgi_request_input_length_sum"}
	ttftSum      = []string{"vllm:time_to_first_token_seconds_sum", "sglang:time_to_first_token_seconds_sum"}
	ttftCount    = []string{"vllm:time_to_first_token_seconds_count", "sglang:time_to_first_token_seconds_count"}
	itlSum       = []string{"vllm:inter_token_latency_seconds_sum", "vllm:time_per_output_token_seconds_sum", "sglang:inter_token_latency_seconds_sum", "sglang:time_per_output_token_seconds_sum", "tgi_request_mean_time_per_token_duration_sum"}
	itlCount     = []string{"vllm:inter_token_latency_seconds_count", "vllm:time_per_output_token_seconds_count", "sglang:inter_token_latency_seconds_count", "sglang:time_per_output_token_seconds_count", "tgi_request_mean_time_per_token_duration_count"}
	running      = []string{"vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size"}
	waiting      = []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "tgi_queue_size"}
	kvUsage      = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"}
	prefixHits   = []string{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits"}
	prefixQuery  = []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries"}
	queueSum     = []string{"vllm:request_queue_time_seconds_sum"}
	queueCount   = []string{"vllm:request_queue_time_seconds_count"}
	prefillSum   = []string{"vllm:request_prefill_time_seconds_sum"}
	prefillCount = []string{"vllm:request_prefill_time_seconds_count"}
	stepsCount   = []string{"vllm:iteration_tokens_total_count"}
	stepsSum     = []string{"vllm:iteration_tokens_total_sum"}
	// speculative decoding (vLLM): drafts proposed, their tokens, and the
	// tokens the target model accepted
	specDrafts   = []string{"vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_drafts"}
	specDraftTok = []string{"vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_draft_tokens"}
	specAccepted = []string{"vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens"}
)

// View is the server's account of one step: counter differences between
// the scrapes before and after it, and the highest gauges seen during it.
type View struct {
	GenerationTokens float64 `json:"generation_tokens"`
	PromptTokens     float64 `json:"prompt_tokens"`
	TTFTMeanMS       float64 `json:"ttft_mean_ms,omitempty"`
	ITLMeanMS        float64 `json:"itl_mean_ms,omitempty"`
	// QueueMeanMS and PrefillMeanMS are where the server says its first
	// tokens waited, on average: queued before joining a batch, and from
	// joining it to the first token (vLLM and the engine:
	// vllm:request_queue_time_seconds, vllm:request_prefill_time_seconds).
	QueueMeanMS     float64 `json:"queue_mean_ms,omitempty"`
	PrefillMeanMS   float64 `json:"prefill_mean_ms,omitempty"`
	MaxRunning      float64 `json:"max_running"`
	MaxWaiting      float64 `json:"max_waiting"`
	MaxKVCacheUsage float64 `json:"max_kv_cache_usage"`
	PrefixHitRate   float64 `json:"prefix_cache_hit_rate,omitempty"`
	// EngineSteps is how many steps (iterations) the server's engine ran
	// over the step, StepTokensMean the tokens a step put through the
	// model on average (prompt tokens included), and GeneratedPerStep the
	// tokens generated a step: the batch it decoded on average (vLLM and
	// the engine: vllm:iteration_tokens_total).
	EngineSteps      float64 `json:"engine_steps,omitempty"`
	StepTokensMean   float64 `json:"step_tokens_mean,omitempty"`
	GeneratedPerStep float64 `json:"generated_per_engine_step,omitempty"`
	// SpecAcceptance is the share of draft tokens the target model
	// accepted, and SpecMeanLength the tokens a verification step gave on
	// average (1 + accepted tokens a draft), as vLLM reports them, when
	// the server decodes speculatively; from SGLang, the mean of its
	// spec_accept_rate and spec_accept_length gauges over the step's
	// scrapes (averaged over its ranks).
	SpecAcceptance float64 `json:"spec_decode_acceptance_rate,omitempty"`
	SpecMeanLength float64 `json:"spec_decode_mean_acceptance_length,omitempty"`
	Scrapes        int     `json:"scrapes"`
	Errors         int     `json:"scrape_errors"`
	// Counted: the scrapes before and after the step both succeeded and
	// held the token counters, so the counts above are the server's.
	Counted bool `json:"counted"`
	// LastError is why the last failed scrape failed.
	LastError string `json:"last_error,omitempty"`
	// Reset names a counter that fell between the scrapes before and
	// after the step (the server restarted): the figures drawn from it
	// are left out, not given as negative.
	Reset string `json:"counter_reset,omitempty"`

	// SGLang's acceptance gauges, summed over the scrapes that held them
	sglangLength, sglangRate gaugeMean
}

// gaugeMean averages a gauge over the scrapes that read it.
type gaugeMean struct {
	sum float64
	n   int
}

func (g *gaugeMean) add(x float64, ok bool) {
	if ok {
		g.sum += x
		g.n++
	}
}

func (g gaugeMean) mean() float64 { return g.sum / float64(g.n) }

// Scraper reads a metrics URL.
type Scraper struct {
	URL    string
	Client *http.Client
	// Header is sent with every scrape: the run's API key and headers
	// when the metrics live on the server under test (a key-protected
	// /metrics answered 401 to every scrape).
	Header http.Header
}

// Scrape fetches and parses the metrics once.
func (s *Scraper) Scrape(ctx context.Context) (Sample, error) {
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("server metrics: %w", err)
	}
	for k, vs := range s.Header {
		req.Header[k] = vs
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("server metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("server metrics: HTTP %d", resp.StatusCode)
	}
	return Parse(io.LimitReader(resp.Body, 32<<20))
}

// Watch scrapes now and then every interval (a second if it is not
// positive) until stop is called, which scrapes once more and returns the
// step's View.
func (s *Scraper) Watch(ctx context.Context, interval time.Duration) (stop func() View) {
	if interval <= 0 {
		interval = time.Second
	}
	var mu sync.Mutex
	var v View
	before, err := s.Scrape(ctx)
	v.took(err)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				smp, err := s.Scrape(ctx)
				mu.Lock()
				v.took(err)
				v.gauges(smp)
				mu.Unlock()
			}
		}
	}()
	return func() View {
		close(quit)
		<-done
		after, err := s.Scrape(context.WithoutCancel(ctx))
		v.took(err)
		if err != nil {
			return v
		}
		v.gauges(after)
		if before != nil {
			v.counters(before, after)
		}
		return v
	}
}

// took counts a scrape, or its failure.
func (v *View) took(err error) {
	if err != nil {
		v.Errors++
		v.LastError = err.Error()
		return
	}
	v.Scrapes++
}

// gauges keeps the highest of the gauges a scrape read (none when it
// failed).
func (v *View) gauges(smp Sample) {
	if x, ok := smp.first(running...); ok {
		v.MaxRunning = max(v.MaxRunning, x)
	}
	if x, ok := smp.first(waiting...); ok {
		v.MaxWaiting = max(v.MaxWaiting, x)
	}
	if x, ok := smp.first(kvUsage...); ok {
		v.MaxKVCacheUsage = max(v.MaxKVCacheUsage, x)
	}
	v.sglangLength.add(smp.mean("sglang:spec_accept_length"))
	v.sglangRate.add(smp.mean("sglang:spec_accept_rate"))
}

// counters sets the figures the counters' growth from before to after
// gives; a counter that fell sets Reset and gives none.
func (v *View) counters(before, after Sample) {
	delta := func(names []string) (float64, bool) {
		a, ok1 := after.first(names...)
		b, ok2 := before.first(names...)
		if !ok1 || !ok2 {
			return 0, false
		}
		if d := a - b; d < 0 || math.IsInf(d, 0) {
			if v.Reset == "" {
				v.Reset = firstName(before, names)
			}
			return 0, false
		}
		return a - b, true
	}
	v.GenerationTokens, v.Counted = delta(genTokens)
	v.PromptTokens, _ = delta(promptTokens)
	if sum, ok := delta(ttftSum); ok {
		if n, _ := delta(ttftCount); n > 0 {
			v.TTFTMeanMS = sum / n * 1e3
		}
	}
	v.QueueMeanMS, v.PrefillMeanMS = meanMS(delta, queueSum, queueCount), meanMS(delta, prefillSum, prefillCount)
	if sum, ok := delta(itlSum); ok {
		if n, _ := delta(itlCount); n > 0 {
			v.ITLMeanMS = sum / n * 1e3
		}
	}
	if n, ok := delta(stepsCount); ok && n > 0 {
		v.EngineSteps = n
		if sum, ok := delta(stepsSum); ok {
			v.StepTokensMean = sum / n
		}
		if v.Counted {
			v.GeneratedPerStep = v.GenerationTokens / n
		}
	}
	if q, ok := delta(prefixQuery); ok && q > 0 {
		h, _ := delta(prefixHits)
		v.PrefixHitRate = h / q
	}
	if accepted, ok := delta(specAccepted); ok {
		if tokens, _ := delta(specDraftTok); tokens > 0 {
			v.SpecAcceptance = accepted / tokens
		}
		if drafts, _ := delta(specDrafts); drafts > 0 {
			v.SpecMeanLength = 1 + accepted/drafts
		}
	}
	// SGLang keeps no counters of drafts, only gauges of its last
	// decode batches: their mean over the step's scrapes
	if v.SpecMeanLength == 0 && v.sglangLength.n > 0 {
		v.SpecMeanLength = v.sglangLength.mean()
	}
	if v.SpecAcceptance == 0 && v.sglangRate.n > 0 {
		v.SpecAcceptance = v.sglangRate.mean()
	}
}

// meanMS is a histogram's mean over the step in ms, from the growth of
// its sum and count (0 when it did not grow).
func meanMS(delta func([]string) (float64, bool), sum, count []string) float64 {
	s, ok := delta(sum)
	if n, _ := delta(count); ok && n > 0 {
		return s / n * 1e3
	}
	return 0
}

// firstName is the name, of names, that the sample holds first.
func firstName(s Sample, names []string) string {
	for _, n := range names {
		if _, ok := s[n]; ok {
			return n
		}
	}
	return names[0]
}
