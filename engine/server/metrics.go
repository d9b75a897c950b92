package server

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/internal/latbuckets"
)

// histogram is a Prometheus histogram with fixed buckets.
type histogram struct {
	bounds []float64
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

func newHistogram(bounds ...float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v) // first bound >= v: le semantics
	h.counts[i]++
	h.sum += v
	h.n++
}

func (h *histogram) write(w io.Writer, name, labels string) {
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{%sle=\"%s\"} %d\n", name, labels, formatFloat(b), cum)
	}
	cum += h.counts[len(h.bounds)]
	fmt.Fprintf(w, "%s_bucket{%sle=\"+Inf\"} %d\n", name, labels, cum)
	fmt.Fprintf(w, "%s_sum{%s} %s\n", name, strings.TrimSuffix(labels, ","), formatFloat(h.sum))
	fmt.Fprintf(w, "%s_count{%s} %d\n", name, strings.TrimSuffix(labels, ","), h.n)
}

func formatFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return fmt.Sprintf("%g", v)
}

// metrics are the server's own counts, exported at /metrics in the
// Prometheus text format under vLLM's metric names, so that dashboards
// made for vLLM read the engine too.
type metrics struct {
	mu         sync.Mutex
	prompt     uint64
	generation uint64
	finished   map[string]uint64 // by finish reason
	ttft, itl  *histogram
	e2e        *histogram
	promptHist *histogram
	genHist    *histogram
	// where first tokens waited (sched.FirstTokenWait)
	queued, prefill, prefillCompute *histogram
	prefillShared                   uint64
}

func newMetrics() *metrics {
	return &metrics{
		finished:   map[string]uint64{},
		ttft:       newHistogram(latbuckets.TTFT()...),
		itl:        newHistogram(latbuckets.TokenGap()...),
		e2e:        newHistogram(latbuckets.Request()...),
		promptHist: newHistogram(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000),
		genHist:    newHistogram(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000),
		queued:     newHistogram(latbuckets.TTFT()...), prefill: newHistogram(latbuckets.TTFT()...),
		prefillCompute: newHistogram(latbuckets.TTFT()...),
	}
}

// firstToken records where a request's first token waited.
func (m *metrics) firstToken(w *sched.FirstTokenWait) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queued.observe(w.Queued.Seconds())
	m.prefill.observe((w.Stalled + w.Prefill).Seconds())
	m.prefillCompute.observe(w.Prefill.Seconds())
	m.prefillShared += uint64(w.SharedTokens)
}

// requestDone records a finished request.
func (m *metrics) requestDone(prompt, made int, reason string, start, first time.Time, gaps []time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prompt += uint64(prompt)
	m.generation += uint64(made)
	m.finished[reason]++
	if !first.IsZero() {
		m.ttft.observe(first.Sub(start).Seconds())
	}
	for _, g := range gaps {
		m.itl.observe(g.Seconds())
	}
	m.e2e.observe(time.Since(start).Seconds())
	m.promptHist.observe(float64(prompt))
	m.genHist.observe(float64(made))
}

func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	st := s.sched.Stats()
	m := s.metrics
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	lb := fmt.Sprintf("model_name=%q,", s.Name)
	l := strings.TrimSuffix(lb, ",")
	gauge := func(name, help string, v float64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s{%s} %s\n", name, help, name, name, l, formatFloat(v))
	}
	counter := func(name, help string, v uint64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s{%s} %d\n", name, help, name, name, l, v)
	}
	gauge("vllm:num_requests_running", "Requests decoding in the current batch.", float64(st.Running))
	gauge("vllm:num_requests_waiting", "Requests waiting to be scheduled.", float64(st.Waiting))
	usage := 0.0
	if st.CacheCapacity > 0 {
		usage = float64(st.CacheBytes) / float64(st.CacheCapacity)
	}
	gauge("vllm:kv_cache_usage_perc", "KV cache usage: 1 means full.", usage)
	gauge("tpsbench_kv_cache_bytes", "Bytes held by KV caches.", float64(st.CacheBytes))
	gauge("tpsbench_prefix_cache_bytes", "Bytes held by the prefix cache.", float64(st.PrefixBytes))
	counter("vllm:prefix_cache_queries_total", "Prompt tokens looked up in the prefix cache.", st.PrefixQueries)
	counter("vllm:prefix_cache_hits_total", "Prompt tokens found in the prefix cache.", st.PrefixHits)
	m.mu.Lock()
	defer m.mu.Unlock()
	counter("vllm:prompt_tokens_total", "Prompt tokens processed.", m.prompt)
	counter("vllm:generation_tokens_total", "Tokens generated.", m.generation)
	fmt.Fprintf(w, "# HELP vllm:request_success_total Finished requests by finish reason.\n# TYPE vllm:request_success_total counter\n")
	reasons := make([]string, 0, len(m.finished))
	for r := range m.finished {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "vllm:request_success_total{%sfinished_reason=%q} %d\n", lb, r, m.finished[r])
	}
	hist := func(name, help string, h *histogram) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
		h.write(w, name, lb)
	}
	hist("vllm:time_to_first_token_seconds", "Time to first token, from the request's arrival.", m.ttft)
	hist("vllm:inter_token_latency_seconds", "Time between tokens of a request.", m.itl)
	hist("vllm:e2e_request_latency_seconds", "Request latency, arrival to end.", m.e2e)
	// vLLM's queue and prefill times (waiting; scheduled to first token),
	// and the prefill's own steps apart
	hist("vllm:request_queue_time_seconds", "Time a request waited to join the batch: behind the running step, or for a free sequence.", m.queued)
	hist("vllm:request_prefill_time_seconds", "Time from joining the batch to the first token.", m.prefill)
	hist("tpsbench_request_prefill_steps_seconds", "Time of the steps that fed a request's prompt (shared with the other sequences' tokens in them).", m.prefillCompute)
	counter("tpsbench_request_prefill_shared_tokens_total", "Tokens not a request's own in the steps that fed its prompt: other prompts, and a token of each decoding sequence.", m.prefillShared)
	hist("vllm:request_prompt_tokens", "Prompt tokens a request.", m.promptHist)
	hist("vllm:request_generation_tokens", "Generated tokens a request.", m.genHist)
	hist("vllm:iteration_tokens_total", "Tokens an engine step put through the model: prompt tokens, and a token of each decoding sequence.", stepSizes(st))
}

// stepBounds are sched.StepSizeBounds as a histogram's bounds.
var stepBounds = func() []float64 {
	b := make([]float64, len(sched.StepSizeBounds))
	for i, v := range sched.StepSizeBounds {
		b[i] = float64(v)
	}
	return b
}()

// stepSizes is the scheduler's count of steps by size as a histogram.
func stepSizes(st sched.Stats) *histogram {
	return &histogram{bounds: stepBounds, counts: st.StepSizes[:], sum: float64(st.StepTokens), n: st.Steps}
}
