package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/internal/outfile"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/monitor"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/report"
	"github.com/tpsbench/tpsbench/servermetrics"
	"github.com/tpsbench/tpsbench/tokencount"
	"github.com/tpsbench/tpsbench/workload"
)

type runFlags struct {
	output outputFlags
	engine engineFlags

	url       string
	scenario  string
	models    []string
	targets   []string
	api       string
	noStream  bool
	apiKeyEnv string
	headers   []string
	timeout   time.Duration
	ignoreEOS bool
	temp      float64

	prompt    string
	maxTokens int

	prompts                   string
	replyLength, multiTurn    bool
	inputTokens, inputStddev  float64
	outputTokens, outputStdev float64
	prefixTokens, prefixGroup int

	requests    int
	concurrency int
	rate        float64
	arrivals    string
	burstiness  float64
	seed        uint64
	duration    time.Duration
	warmup      int
	sweep       string
	sweepRates  string
	grace       time.Duration

	records     string
	showTokens  bool
	quiet       bool
	factor      string
	shard       string
	startAt     string
	findMax     bool
	maxConc     int
	maxInFlight int // --max-concurrency: --concurrency under vLLM's name
	serverMet   string
	metricsAt   string
	live        bool
	tokenizer   string

	trace         string
	traceFormat   string
	traceSpeed    float64
	traceWindow   string
	traceScale    float64 // --trace-input-scale
	traceMaxInput int     // --trace-max-input-tokens
}

func newRunCmd() *cobra.Command { return newRunCmdWith(&runFlags{}) }

// newRunCmdWith binds run's flags to f, so a test can parse a command line
// and resolve it without running anything.
func newRunCmdWith(f *runFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Measure a server (the embedded engine unless --url): one request, a batch, a concurrency, a rate, a sweep, a comparison, a limit search",
		Example: `  tpsbench run --url http://127.0.0.1:8000 --model M --prompt "Explain AI" --max-tokens 100
  tpsbench run --url URL --requests 100 --concurrency 100 --max-tokens 50
  tpsbench run --url URL --show-tokens
  tpsbench run --url URL --sweep 1,4,8,16,32 --max-tokens 50
  tpsbench run --url URL --model a --model b
  tpsbench run --target small=http://h1:8000#m1 --target big=http://h2:8000#m2
  tpsbench run --url URL --rate 5 --arrivals poisson --duration 60s --records run.jsonl
  tpsbench run --url URL --sweep-rates auto --requests 200 --format html --out sweep.html
  tpsbench run --url URL --trace production.jsonl --records replay.jsonl
  tpsbench run --scenario bench.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRun(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "", "a YAML file of settings, as GuideLLM's scenarios: keys are this command's flag names (max-tokens: 256, model: [a, b], sweep: [1, 4, 8]); flags on the command line win")
	fl.StringVar(&f.url, "url", "", "base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000 (default: start the embedded engine)")
	fl.StringArrayVar(&f.models, "model", nil, "model to ask for; repeat to compare models (default: the server's first model)")
	fl.StringArrayVar(&f.targets, "target", nil, "a named target NAME=URL#MODEL; repeat to compare servers")
	fl.StringVar(&f.api, "api", "chat", "API: "+client.APIHelp()+", or auto: ask the server")
	fl.BoolVar(&f.noStream, "no-stream", false, "ask for whole responses instead of streams (TTFT is then the full latency)")
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (sent as a bearer token, never printed or recorded)")
	fl.StringArrayVar(&f.headers, "header", nil, "extra request header K:V; repeatable")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Minute, "per-request timeout (0 for none)")
	fl.BoolVar(&f.ignoreEOS, "ignore-eos", false, "send ignore_eos: true so every request generates exactly --max-tokens (vLLM, SGLang, llama.cpp server, tpsbench serve)")
	fl.Float64Var(&f.temp, "temperature", -1, "sampling temperature to send (default: the server's)")
	fl.Lookup("temperature").DefValue = "0" // -1 stands for unset: help says the default in words
	fl.StringVar(&f.prompt, "prompt", "Explain AI", "prompt to send")
	fl.IntVar(&f.maxTokens, "max-tokens", 100, "output token budget per request")
	fl.StringVar(&f.prompts, "prompts", "", "prompts file: one a line, JSON lines with prompt or messages (and max_tokens), or a ShareGPT JSON array")
	fl.BoolVar(&f.multiTurn, "multi-turn", false, "with a ShareGPT file: every human turn is a request carrying the conversation so far (turns in order)")
	fl.BoolVar(&f.replyLength, "sharegpt-output-len", false, "with a ShareGPT file: each request's budget is its reference reply's length (4 characters a token)")
	fl.Float64Var(&f.inputTokens, "input-tokens", 0, "synthetic prompts of this many tokens on average (common words, one token each)")
	fl.Float64Var(&f.inputStddev, "input-stddev", 0, "standard deviation of synthetic prompt lengths")
	fl.Float64Var(&f.outputTokens, "output-tokens", 0, "with --input-tokens: mean output budget (default --max-tokens)")
	fl.Float64Var(&f.outputStdev, "output-stddev", 0, "standard deviation of synthetic output budgets")
	fl.IntVar(&f.prefixTokens, "prefix-tokens", 0, "with --input-tokens: a shared prefix of this many tokens before each prompt")
	fl.IntVar(&f.prefixGroup, "prefix-groups", 1, "number of distinct shared prefixes, used in turn")
	fl.IntVar(&f.requests, "requests", 0, "measured requests per step (default: one batch of --concurrency, or unlimited with --duration)")
	fl.IntVar(&f.concurrency, "concurrency", 0, "requests in flight (default 1; with --rate, a cap, default none)")
	fl.Float64Var(&f.rate, "rate", 0, "requests per second, open loop (the next start never waits for the server); inf starts every request at once, up to --concurrency")
	fl.StringVar(&f.arrivals, "arrivals", "poisson", "with --rate: poisson, constant or gamma (see --burstiness)")
	fl.Float64Var(&f.burstiness, "burstiness", 0, "with --rate, gamma arrivals of this shape, as vLLM's --burstiness: below 1 burstier than Poisson, above 1 more even (default 1 with --arrivals gamma)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed for arrival times")
	fl.DurationVar(&f.duration, "duration", 0, "run each step this long instead of for a number of requests")
	fl.IntVar(&f.warmup, "warmup", -1, "warm-up requests per step, sent first and left out of the figures (default: one per slot in a sweep or against the embedded engine, else 0)")
	fl.Lookup("warmup").DefValue = "0" // as --temperature's
	fl.StringVar(&f.sweep, "sweep", "", "concurrency levels to step through, e.g. 1,4,8,16,32")
	fl.StringVar(&f.sweepRates, "sweep-rates", "", "request rates to step through (requests/s, open loop, as GuideLLM's sweeps), e.g. 1,2,4,8; each step needs --requests or --duration, and --concurrency caps it")
	fl.DurationVar(&f.grace, "grace", 5*time.Second, "on Ctrl-C, how long requests in flight may finish")
	fl.StringVar(&f.records, "records", "", "write every request's record to this JSONL file as it ends")
	fl.BoolVar(&f.showTokens, "show-tokens", false, "print each token as it arrives with its instant TPS (one streamed request)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress output on stderr")
	fl.StringVar(&f.tokenizer, "tokenizer", "", "client-side tokenizer (cl100k or o200k, built in, or the path of a model's Hugging Face tokenizer.json): counts output when the server reports no usage, and sizes synthetic prompts when it has no /tokenize")
	fl.BoolVar(&f.live, "live", false, "a full-screen live view on stderr while running (rolling TPS, latency percentiles, in flight, failures)")
	fl.StringVar(&f.metricsAt, "metrics-addr", "", "serve the run's live metrics for Prometheus at this address, e.g. 127.0.0.1:9464 (/metrics)")
	fl.StringVar(&f.serverMet, "server-metrics", "", "the server's Prometheus endpoint (vLLM, SGLang, TGI, tpsbench serve), scraped around each step to report its own view; 'engine' for the embedded one")
	fl.BoolVar(&f.findMax, "find-max", false, "search the highest concurrency at which every target (--slo, --target-use) holds: doubling, then bisecting")
	fl.IntVar(&f.maxConc, "find-max-limit", 256, "with --find-max: the highest concurrency to try")
	fl.IntVar(&f.maxInFlight, "max-concurrency", 0, "the cap on requests in flight, as vLLM's benchmark names it: the same as --concurrency (with --rate, the cap)")
	fl.StringVar(&f.shard, "shard", "", "run share I of N of the load (I from 0, e.g. a Kubernetes JOB_COMPLETION_INDEX), as I/N; tpsbench merge combines the shards' records")
	fl.StringVar(&f.startAt, "start-at", "", "wait until this wall-clock time (RFC 3339, or Unix seconds) before starting, so that shards start together")
	fl.StringVar(&f.factor, "factor", "", "run one of the experiments of docs/design.md on the engine: batch (sizes 1-32), quantization (F16, Q8_0, Q4_0), prefix-cache (cold vs warm on a 512-token prefix), model-size (15m vs 110m)")
	fl.StringVar(&f.trace, "trace", "", "replay a trace open loop: each request at its recorded time, with a prompt of its input length (shared prefixes where the trace marks them) and max_tokens of its output length; a Mooncake JSONL trace or tpsbench records (of run or proxy)")
	fl.StringVar(&f.traceFormat, "trace-format", "auto", "format of --trace: auto, mooncake or records")
	fl.Float64Var(&f.traceSpeed, "trace-speed", 1, "replay the trace this many times faster (0.5: half as fast)")
	fl.StringVar(&f.traceWindow, "trace-window", "", "replay only the requests that arrived in FROM-TO of the trace (durations, e.g. 10m-20m, 30s-), timed from FROM")
	fl.Float64Var(&f.traceScale, "trace-input-scale", 1, "multiply the trace's prompt lengths by this (0.5: half as long), for a server of a shorter context")
	fl.IntVar(&f.traceMaxInput, "trace-max-input-tokens", 0, "clip longer prompts of the trace to this many tokens (each request is also clipped to fit the context the server gives at /v1/models)")
	f.output.register(cmd)
	f.engine.register(cmd, "engine-")
	return cmd
}

// startEngine starts the embedded engine ef describes in a process of its
// own, serving on a loopback port.
func (f *runFlags) startEngine(cmd *cobra.Command, ef engineFlags, asked int) (url, name string, stop func(), err error) {
	opts, err := ef.options() // flags checked here: usage errors exit as such
	if err != nil {
		return "", "", nil, err
	}
	if runs := opts.Sched.Seqs(); asked > runs {
		fmt.Fprintf(cmd.ErrOrStderr(), "tpsbench: warning: concurrency %d exceeds the %d sequences the engine runs at once (--engine-max-num-seqs, --engine-preset); the others wait, and their TTFT includes the wait\n", asked, runs)
	}
	p, err := startEngineProcess(ef.serveArgs())
	if err != nil {
		return "", "", nil, err
	}
	if !f.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "engine: %s %s at %s, in a process of its own\n", p.Name, p.Info, p.URL)
	}
	return p.URL, p.Name, p.Stop, nil
}

// exporterObserver feeds a run's events to the Prometheus exporter.
type exporterObserver struct{ *monitor.Exporter }

func (exporterObserver) StepBegan(int, *tpsbench.Step)        {}
func (o exporterObserver) Done(r *record.Record)              { o.Observe(r) }
func (o exporterObserver) Chunk(r *record.Record, tokens int) { o.Exporter.Chunk(r, tokens) }
func (o exporterObserver) Sent(r *record.Record)              { o.Exporter.Sent(r) }

// textCounter is the client tokenizer that counts responses without
// usage: the one named, or for whole responses tokencount.Default (a
// non-streamed response is one chunk: counting chunks made it one token,
// 40 times too few). Streams without one are counted by chunks, and the
// report says so.
func textCounter(name string, stream bool) (client.TextCounter, error) {
	if name == "" {
		if stream {
			return client.TextCounter{}, nil
		}
		name = tokencount.Default
	}
	count, err := tokencount.New(name)
	if err != nil {
		return client.TextCounter{}, err
	}
	return client.TextCounter{Name: name, Count: count}, nil
}

// askedConcurrency is the most requests the run will have in flight at
// once: its highest concurrency level, or find-max's limit.
func (f *runFlags) askedConcurrency(levels []int) int {
	n := slices.Max(levels)
	if f.findMax {
		n = max(n, f.maxConc)
	}
	return n
}

// engineAPI is the API the embedded engine is spoken to in: --api's, or
// with auto, chat (it serves OpenAI's chat and completions).
func engineAPI(api string) string {
	if api == client.APIAuto {
		return client.APIChat
	}
	return api
}

// endpointFlagError names the flag a client.Endpoint error is about.
func endpointFlagError(err error) error {
	if errors.Is(err, client.ErrAPI) {
		return fmt.Errorf("--api: %w", err)
	}
	return fmt.Errorf("--url: %w", err)
}

// target is a server and model to measure, and the API it is spoken to in.
type target struct {
	name, url, model, api string
}

// apiFor is the API to speak to the server at u: --api's, or with --api
// auto, the one the server answers to.
func (f *runFlags) apiFor(ctx context.Context, stderr io.Writer, u, key string, headers http.Header) (string, error) {
	if f.api != client.APIAuto {
		return f.api, nil
	}
	if f.timeout > 0 {
		// the probes, all of them, within a request's time
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	api, why, err := client.Detect(ctx, u, key, headers)
	if err == nil && !f.quiet {
		fmt.Fprintf(stderr, "--api auto: %s, for %s (--api names another)\n", api, why)
	}
	return api, err
}

func (f *runFlags) parseTargets(ctx context.Context, stderr io.Writer, key string, headers http.Header) ([]target, error) {
	var ts []target
	for _, spec := range f.targets {
		name, rest, ok := strings.Cut(spec, "=")
		u, model, ok2 := strings.Cut(rest, "#")
		switch {
		case !ok || name == "":
			return nil, usagef("--target: no NAME= before the URL: want NAME=URL#MODEL")
		case !ok2 || model == "":
			// the URL is shown without its credentials, if it has any
			return nil, usagef("--target %s=%s: no #MODEL after the URL: want NAME=URL#MODEL", name, client.Redact(u))
		case u == "":
			return nil, usagef("--target %s: no URL: want NAME=URL#MODEL", name)
		}
		api, err := f.apiFor(ctx, stderr, u, key, headers)
		if err != nil {
			return nil, err
		}
		ts = append(ts, target{name: name, url: u, model: model, api: api})
	}
	if len(ts) > 0 {
		if f.url != "" || len(f.models) > 0 {
			return nil, usagef("give either --target or --url/--model, not both")
		}
		return ts, nil
	}
	if f.api != client.APIAuto {
		if _, _, err := client.Endpoint(f.url, f.api); err != nil {
			return nil, usageError{endpointFlagError(err)}
		}
	}
	api, err := f.apiFor(ctx, stderr, f.url, key, headers)
	if err != nil {
		return nil, err
	}
	models := f.models
	if len(models) == 0 {
		ids, err := client.ListModels(ctx, f.url, api, key, headers)
		if err != nil {
			return nil, fmt.Errorf("no --model given, and %w", err)
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("no --model given, and the server lists no models")
		}
		models = ids[:1]
	}
	for _, m := range models {
		ts = append(ts, target{name: m, url: f.url, model: m, api: api})
	}
	return ts, nil
}

func parseLevels(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, usagef("--sweep %q: want concurrency levels such as 1,4,8,16,32", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, kv := range hs {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--header %q: want Name: value", strings.SplitN(kv, ":", 2)[0])
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return h, nil
}

// profile builds one step's load from the flags as resolved.
func (f *runFlags) profile(cfg *runConfig, concurrency int, rate float64) (load.Profile, error) {
	if math.IsInf(rate, 1) {
		// vLLM's --request-rate inf: every request at once, as many in
		// flight as the concurrency allows, each timed from its send
		if cfg.requests == 0 {
			return load.Profile{}, usagef("--rate inf sends every request at once: give --requests (and --concurrency to cap them)")
		}
		rate = 0
		if concurrency == 0 {
			concurrency = cfg.requests
		}
	}
	p := load.Profile{
		Concurrency: concurrency, Rate: rate, Arrivals: cfg.arrivals, Burstiness: cfg.burstiness,
		Seed: f.seed, Requests: cfg.requests, Duration: f.duration, Warmup: f.warmup, Grace: f.grace,
	}
	if p.Rate == 0 && p.Concurrency == 0 {
		p.Concurrency = 1
	}
	if p.Requests == 0 && p.Duration == 0 {
		if p.Rate > 0 {
			return p, usagef("with --rate, give --requests or --duration")
		}
		p.Requests = p.Concurrency
		if cfg.sweeping || f.factor != "" {
			p.Requests = levelRequests(p.Concurrency)
		}
	}
	if p.Warmup < 0 {
		p.Warmup = 0
		// a sweep's levels, and the embedded engine (whose first steps
		// page its weights in and grow its buffers: one run read 256 and
		// the next 690 tok/s), start warm: one request per slot
		if cfg.sweeping || cfg.embedded {
			p.Warmup = max(p.Concurrency, 1)
		}
	}
	if err := p.Validate(); err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// Levels compared with each other (a sweep's, a factor's) run this many
// waves of their concurrency, and at least minLevelRequests requests,
// unless --requests or --duration says otherwise: one wave made c=1 a
// single 0.1 s request, and a batch factor read "c=16 30.64x c=1" on a
// busy machine.
const (
	levelWaves       = 8
	minLevelRequests = 16
)

func levelRequests(concurrency int) int {
	return max(levelWaves*concurrency, minLevelRequests)
}

// calibrate sizes a synthetic workload's prompts in the first target's
// tokens: with its /tokenize, else with --tokenizer, else in words.
func (f *runFlags) calibrate(ctx context.Context, src workload.Source, tgts []target, key string, counter client.TextCounter, stderr io.Writer) workload.Source {
	countTokens := counter.Count
	syn, ok := src.(workload.Synthetic)
	if !ok || len(tgts) == 0 {
		return src
	}
	{
		// exact lengths where the server has a tokenizer endpoint
		tk, err := client.NewTokenizer(ctx, tgts[0].url, tgts[0].api, tgts[0].model, key)
		switch {
		case err != nil && f.tokenizer != "": // the default one counts outputs, not prompts
			if syn.Calibrate(func(s string) (int, error) { return countTokens(s), nil }) == nil {
				src = syn
				if !f.quiet {
					fmt.Fprintf(stderr, "prompt lengths sized with the %s tokenizer (the server has no /tokenize; its template is not counted)\n", f.tokenizer)
				}
			}
		case err != nil:
			if !f.quiet {
				fmt.Fprintf(stderr, "prompt lengths are in words (about a token each): the server has no /tokenize (%v)\n", err)
			}
		case syn.Calibrate(func(s string) (int, error) { return tk.Count(ctx, s) }) != nil:
			fmt.Fprintln(stderr, "prompt lengths are in words: calibrating with the server's tokenizer failed")
		default:
			if !f.quiet {
				fmt.Fprintf(stderr, "prompt lengths calibrated with the server's /tokenize: %.2f tokens a word, %.0f added by the request\n", syn.TokensPerWord, syn.Overhead)
			}
			src = syn
		}
	}
	return src
}

// serverMetrics is the scraper of --server-metrics, or nil.
func (f *runFlags) serverMetrics(tgts []target, engineURLs []string, key string, headers http.Header) (*servermetrics.Scraper, error) {
	u := f.serverMet
	switch {
	case u == "":
		return nil, nil
	case u == "engine":
		if len(engineURLs) == 0 {
			return nil, usagef("--server-metrics engine: no embedded engine runs (drop --url)")
		}
		u = engineURLs[0] + "/metrics"
	default:
		if _, _, err := client.Endpoint(u, ""); err != nil {
			return nil, usagef("--server-metrics: want the URL of a Prometheus endpoint, e.g. http://127.0.0.1:8000/metrics")
		}
	}
	return &servermetrics.Scraper{URL: u, Header: metricsHeader(u, tgts, key, headers)}, nil
}

// liveViews are what watches a run as it goes: the progress line or the
// dashboard, and the Prometheus exporter.
type liveViews struct {
	observers   tpsbench.Observers
	prog        *progress
	dash        *dashboard
	stopMetrics func()
}

// startLiveViews starts the views the flags ask for.
func (f *runFlags) startLiveViews(stderr io.Writer, steps int) (*liveViews, error) {
	v := &liveViews{}
	if f.live && !f.quiet {
		v.dash = newDashboard(stderr, "run")
		v.dash.live = true
		v.observers = append(v.observers, v.dash)
		v.dash.start(500 * time.Millisecond)
	} else if !f.quiet {
		v.prog = newProgress(stderr, steps)
		v.observers = append(v.observers, v.prog)
		v.prog.start()
	}
	if f.metricsAt != "" {
		exp := monitor.NewExporter()
		stop, url, err := exp.Serve(f.metricsAt)
		if err != nil {
			v.stop()
			return nil, err
		}
		v.stopMetrics = stop
		if !f.quiet {
			fmt.Fprintf(stderr, "live metrics at %s/metrics\n", url)
		}
		v.observers = append(v.observers, exporterObserver{exp})
	}
	return v, nil
}

// stop ends the progress line or dashboard (before the report prints).
func (v *liveViews) stop() {
	if v.prog != nil {
		v.prog.stop()
		v.prog = nil
	}
	if v.dash != nil {
		v.dash.stop()
		v.dash = nil
	}
}

// close stops the exporter (after the report: a scrape may still come).
func (v *liveViews) close() {
	v.stop()
	if v.stopMetrics != nil {
		v.stopMetrics()
	}
}

// startEngines starts the embedded engines the run measures (none when it
// measures a URL), sized for the concurrency asked, and returns them as
// targets with their URLs; stop stops them (call it even on error).
func (f *runFlags) startEngines(cmd *cobra.Command, cfg *runConfig, engines []namedEngine) (tgts []target, engineURLs []string, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	if !cfg.embedded {
		for _, name := range []string{"engine-model", "engine-dtype", "engine-threads", "engine-max-num-seqs", "engine-seed", "engine-preset", "engine-enable-chunked-prefill", "engine-max-prefill-tokens", "engine-enable-prefix-caching", "engine-kv-cache-mb", "engine-kv-cache-dtype", "engine-reasoning", "engine-reasoning-parser"} {
			if cmd.Flags().Changed(name) {
				return nil, nil, stop, usagef("--%s applies to the embedded engine, which runs only without --url or --target", name)
			}
		}
		return nil, nil, stop, nil
	}
	if api := engineAPI(f.api); api != client.APIChat && api != client.APICompletions {
		return nil, nil, stop, usagef("--api %s: the embedded engine serves chat and completions; measure a server that speaks %s with --url", f.api, f.api)
	}
	if len(engines) == 0 {
		engines = []namedEngine{{"", f.engine}}
	}
	asked := f.askedConcurrency(cfg.levels)
	for _, ne := range engines {
		ef := ne.flags
		// sized for the concurrency asked: an engine running 16
		// sequences under --concurrency 32 queues half the requests,
		// and their TTFT measures the queue
		if !ef.changed("max-num-seqs") && ef.preset == "" {
			ef.maxSeqs = max(ef.maxSeqs, asked)
		}
		url, name, stopEngine, err := f.startEngine(cmd, ef, asked)
		if err != nil {
			return nil, nil, stop, err
		}
		stops = append(stops, stopEngine)
		for _, m := range f.models {
			// a name the engine does not serve would otherwise be
			// silently replaced by the one it does
			if m != name {
				return nil, nil, stop, usagef("--model %q: the embedded engine serves %q; choose what it loads with --engine-model (a GGUF file or a built-in shape), or measure another server with --url", m, name)
			}
		}
		label := ne.label
		if label == "" {
			label = name
		}
		tgts = append(tgts, target{name: label, url: url, model: name, api: engineAPI(f.api)})
		engineURLs = append(engineURLs, url)
	}
	return tgts, engineURLs, stop, nil
}

func runRun(cmd *cobra.Command, f *runFlags) error {
	if f.scenario != "" {
		if err := applyScenario(cmd.Flags(), f.scenario); err != nil {
			return err
		}
	}
	if err := f.applyMaxConcurrency(cmd.Flags()); err != nil {
		return err
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	cfg, err := resolve(f, cmd.Flags().Changed)
	if err != nil {
		return err
	}
	if (cfg.levelSweep || f.factor != "") && cfg.requests == 0 && f.duration == 0 && !f.quiet {
		fmt.Fprintf(stderr, "each level: %d waves of its concurrency, at least %d requests (--requests or --duration sizes them otherwise)\n", levelWaves, minLevelRequests)
	}
	key := os.Getenv(f.apiKeyEnv)
	ctx, abort, caught, stop := interruptible(cmd.Context())
	defer stop()

	phases, autoRates, engines, err := f.phases(cmd, cfg)
	if err != nil {
		return err
	}
	tgts, engineURLs, stopEngines, err := f.startEngines(cmd, cfg, engines)
	defer stopEngines()
	if err != nil {
		return err
	}
	if tgts == nil {
		if tgts, err = f.parseTargets(ctx, stderr, key, cfg.headers); err != nil {
			return err
		}
	}
	if autoRates > 0 && len(tgts) > 1 {
		return usagef("--sweep-rates auto places rates by one server's speed: give one target")
	}
	clock := record.NewClock()
	steps, err := f.newStepBuilder(ctx, cfg, tgts, key, clock, stdout, stderr)
	if err != nil {
		return err
	}
	defer steps.close()
	startAt, err := parseStartAt(f.startAt)
	if err != nil {
		return err
	}
	plan := tpsbench.Plan{Targets: cfg.targets, Clock: clock, Convention: f.output.convention, Abort: abort}
	if !f.findMax { // find-max builds its steps as it searches
		if plan.Steps, err = steps.buildAll(tgts, phases); err != nil {
			return err
		}
	}
	if plan.ServerMetrics, err = f.serverMetrics(tgts, engineURLs, key, cfg.headers); err != nil {
		return err
	}
	closeRecords, err := f.openRecords(&plan)
	if err != nil {
		return err
	}
	defer closeRecords()
	views, err := f.startLiveViews(stderr, len(plan.Steps)+autoRates)
	if err != nil {
		return err
	}
	defer views.close()
	if steps.tokens != nil {
		views.observers = append(views.observers, steps.tokens)
	}
	if len(views.observers) > 0 {
		plan.Observer = views.observers
	}
	f.waitForStart(ctx, startAt, stderr)
	sess := tpsbench.NewSession(plan) // every strategy's steps get the outputs wired above
	if f.findMax {
		return f.runFindMax(ctx, cmd, caught, sess, tgts, steps.build, views)
	}
	res, runErr := sess.Run(ctx, plan.Steps)
	if err := replayErrors(steps.replays, stderr, f.quiet); runErr == nil {
		runErr = err
	}
	note := ""
	if autoRates > 0 && runErr == nil && !res.Interrupted && len(res.Steps) == 2 {
		res, note, runErr = f.runRatesBetween(ctx, cmd, sess, res, steps.build, tgts[0], autoRates)
	}
	views.stop()
	return f.finish(cmd, res, note, runErr, steps.tokens, caught)
}

// phases are the steps a run makes of each target: the factor's engines
// and phases, the rate sweep's, else one a concurrency level. autoRates is
// how many rates an auto sweep adds between its two anchor phases.
func (f *runFlags) phases(cmd *cobra.Command, cfg *runConfig) (phases []phase, autoRates int, engines []namedEngine, err error) {
	if phases, engines, err = f.applyFactor(); err != nil {
		return nil, 0, nil, err
	}
	if f.sweepRates != "" {
		if phases, autoRates, err = f.ratePhases(cmd, cfg.levelSweep); err != nil {
			return nil, 0, nil, err
		}
	}
	if phases == nil {
		for _, c := range cfg.levels {
			phases = append(phases, phase{concurrency: c})
		}
	}
	return phases, autoRates, engines, nil
}

// openRecords points the plan's records at --records; the returned func
// closes the file.
func (f *runFlags) openRecords(plan *tpsbench.Plan) (func(), error) {
	if f.records == "" {
		return func() {}, nil
	}
	// in place as they are measured, so that a run that dies keeps them;
	// a file that exists is refused (checkOutputs) unless --force
	file, err := outfile.CreateStream(f.records, f.output.force)
	if err != nil {
		return nil, fmt.Errorf("creating records file: %w", err)
	}
	plan.Records = record.NewWriter(file)
	return func() { file.Close() }, nil
}

// waitForStart sleeps until --start-at, or until the run is interrupted.
func (f *runFlags) waitForStart(ctx context.Context, startAt time.Time, stderr io.Writer) {
	if startAt.IsZero() {
		return
	}
	d := time.Until(startAt)
	if d <= 0 {
		return
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "waiting %v for --start-at %s\n", d.Round(time.Millisecond), startAt.Format(time.RFC3339))
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// finish renders what a run measured and turns how it ended into the exit
// status: a run error first, then an interruption, then a render error.
func (f *runFlags) finish(cmd *cobra.Command, res *tpsbench.Result, note string, runErr error, tokens *tokenPrinter, caught func() os.Signal) error {
	if res == nil {
		return runErr
	}
	stderr := cmd.ErrOrStderr()
	if tokens != nil {
		tokens.summary()
	}
	rep := report.New(tpsbench.Version, res.Steps)
	rep.Interrupted = res.Interrupted
	rep.Note = note
	renderErr := f.output.render(cmd.OutOrStdout(), rep)
	warnBusyClient(stderr, res.Steps)
	switch {
	case runErr != nil:
		return runErr
	case res.Interrupted:
		fmt.Fprintln(stderr, "tpsbench: interrupted; the report covers the requests that finished")
		if caught() == syscall.SIGTERM {
			return exitCode(exitTerminated)
		}
		return exitCode(exitInterrupted)
	}
	return renderErr
}

// tokenPrinter prints each token as it arrives (docs/design.md's
// streaming example).
type tokenPrinter struct {
	w      io.Writer
	clock  *record.Clock
	n      int   // arrivals printed
	first  int64 // when the first arrival came
	prev   int64 // when the arrival before the pending one came
	tokens int   // tokens printed
	// the arrival being gathered: chunks read at once come one after
	// another with one stamp, and are shown as one arrival
	pending struct {
		at           int64
		tokens, size int
		text         strings.Builder
	}
	warmup atomic.Bool // the request streaming now is a warm-up: not shown
}

// The printer watches the run to show the measured request only: a
// warm-up (the embedded engine's) streamed its tokens first, and they were
// shown and averaged with the measured ones.
func (p *tokenPrinter) StepBegan(int, *tpsbench.Step) {}
func (p *tokenPrinter) Sent(r *record.Record)         { p.warmup.Store(r.Warmup) }
func (p *tokenPrinter) Chunk(*record.Record, int)     {}
func (p *tokenPrinter) Done(*record.Record)           {}

// token gathers a chunk; an arrival is printed once a chunk of a later
// read starts the next (or at the end).
func (p *tokenPrinter) token(at int64, tokens int, text string) {
	if p.warmup.Load() {
		return
	}
	if p.pending.size > 0 && at != p.pending.at {
		p.flush()
	}
	p.pending.at = at
	p.pending.tokens += max(tokens, 1)
	p.pending.size++
	p.pending.text.WriteString(text)
}

// flush prints the pending arrival: its tokens, its text, and its instant
// TPS (its tokens over the gap since the arrival before).
func (p *tokenPrinter) flush() {
	a := &p.pending
	if a.size == 0 {
		return
	}
	label := strconv.Itoa(p.tokens + 1)
	if a.tokens > 1 {
		label = fmt.Sprintf("%d-%d", p.tokens+1, p.tokens+a.tokens)
	}
	inst := "(first)"
	if p.n == 0 {
		p.first = a.at
		fmt.Fprintf(p.w, "%6s  %-24s %12s\n", "token", "text", "instant TPS")
	} else {
		inst = fmt.Sprintf("%.1f", float64(a.tokens)/(float64(a.at-p.prev)/1e9))
	}
	if a.size > 1 {
		inst += fmt.Sprintf("  (%d chunks in one read)", a.size)
	}
	fmt.Fprintf(p.w, "%6s  %-24q %12s\n", label, a.text.String(), inst)
	p.n++
	p.tokens += a.tokens
	p.prev = a.at
	a.tokens, a.size = 0, 0
	a.text.Reset()
}

func (p *tokenPrinter) summary() {
	p.flush()
	if p.n > 1 {
		fmt.Fprintf(p.w, "Streamed %d arrivals; average TPS after the first token: %.2f tokens/s\n\n",
			p.n, float64(p.tokens-1)/(float64(p.prev-p.first)/1e9))
	} else {
		fmt.Fprintln(p.w)
	}
}

// phase is one step of a target when a factor shapes the run.
type phase struct {
	label       string
	concurrency int
	rate        float64 // 0: from the flags
	requests    int     // 0: from the flags
}

type namedEngine struct {
	label string
	flags engineFlags
}

// applyFactor turns --factor into the steps and engines of the
// experiment (engine.NewFactor; batch's levels are resolve's).
func (f *runFlags) applyFactor() ([]phase, []namedEngine, error) {
	if f.factor == "" {
		return nil, nil, nil
	}
	base, err := f.engine.options()
	if err != nil {
		return nil, nil, err
	}
	fac, err := engine.NewFactor(f.factor, base, f.requests)
	if err != nil {
		return nil, nil, usagef("--factor %q: want %s", f.factor, strings.Join(engine.FactorNames, ", "))
	}
	if fac.ComparesEngines() && (f.url != "" || len(f.targets) > 0) {
		return nil, nil, usagef("--factor %s compares engine configurations: drop --url and --target", f.factor)
	}
	var engines []namedEngine
	for _, v := range fac.Variants {
		engines = append(engines, namedEngine{v.Label, f.engine.with(v.Options)})
	}
	var phases []phase
	for _, p := range fac.Phases {
		phases = append(phases, phase{label: p.Label, concurrency: p.Concurrency, requests: p.Requests})
	}
	return phases, engines, nil
}

// metricsHeader is what a scrape of the metrics URL u sends: the run's API
// key and headers when u is on a server under test (a key-protected
// /metrics refused every scrape), nothing for another host, which must
// not see the key.
func metricsHeader(u string, tgts []target, key string, headers http.Header) http.Header {
	mu, err := url.Parse(u)
	if err != nil {
		return nil
	}
	for _, t := range tgts {
		if tu, err := url.Parse(t.url); err == nil && tu.Host == mu.Host {
			h := headers.Clone()
			if h == nil {
				h = http.Header{}
			}
			if key != "" {
				h.Set("Authorization", "Bearer "+key)
			}
			return h
		}
	}
	return nil
}

// interruptible returns a context cancelled by SIGINT or SIGTERM (stop
// sending; requests in flight get their grace), one cancelled by a second
// signal (end them now), and which signal came first (for the exit code:
// 130 or 143).
func interruptible(parent context.Context) (ctx, abort context.Context, caught func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	abort, cancelAbort := context.WithCancel(context.WithoutCancel(parent))
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	done, stopping := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-sigc:
			got.Store(s)
			cancel()
		case <-ctx.Done():
		case <-stopping:
			return
		}
		select {
		case <-sigc:
			cancelAbort()
		case <-stopping:
		}
	}()
	caught = func() os.Signal {
		s, _ := got.Load().(os.Signal)
		return s
	}
	return ctx, abort, caught, func() {
		signal.Stop(sigc)
		close(stopping)
		cancel()
		cancelAbort()
		<-done
	}
}

// workload builds the prompt source the flags describe.
func (f *runFlags) workload(prompt string) (workload.Source, error) {
	for _, v := range []float64{f.inputTokens, f.inputStddev, f.outputTokens, f.outputStdev, float64(f.prefixTokens)} {
		if !(v >= 0) || math.IsInf(v, 1) {
			return nil, usagef("synthetic lengths must be finite and not negative, and --prefix-groups at least 1")
		}
	}
	if f.prefixGroup < 1 {
		return nil, usagef("synthetic lengths must be finite and not negative, and --prefix-groups at least 1")
	}
	if f.inputTokens > workload.MaxPromptTokens || f.prefixTokens > workload.MaxPromptTokens {
		return nil, usagef("--input-tokens and --prefix-tokens: at most %d tokens (a prompt of words is made in memory)", workload.MaxPromptTokens)
	}
	if f.outputTokens > record.MaxTokens {
		return nil, usagef("--output-tokens: at most %d", record.MaxTokens)
	}
	switch {
	case f.inputTokens > 0 && f.prompts != "":
		return nil, usagef("give --prompts or --input-tokens, not both")
	case f.inputTokens > 0:
		out := f.outputTokens
		if out == 0 {
			out = float64(f.maxTokens)
		}
		return workload.Synthetic{InputTokens: f.inputTokens, InputStddev: f.inputStddev, OutputTokens: out, OutputStddev: f.outputStdev,
			PrefixTokens: f.prefixTokens, PrefixGroups: f.prefixGroup, Seed: f.seed}, nil
	case f.prompts != "" && f.multiTurn:
		items, err := workload.Conversations(f.prompts, f.maxTokens, f.replyLength, f.seed)
		if err != nil {
			return nil, err
		}
		return workload.NewListInOrder(items)
	case f.prompts != "":
		items, err := workload.LoadFile(f.prompts, f.maxTokens, f.replyLength)
		if err != nil {
			return nil, err
		}
		return workload.NewList(items, f.seed)
	}
	if f.prefixTokens > 0 || f.outputTokens > 0 {
		return nil, usagef("--prefix-tokens and --output-tokens go with --input-tokens")
	}
	if f.multiTurn {
		return nil, usagef("--multi-turn goes with --prompts FILE (a ShareGPT file)")
	}
	return workload.Fixed{Prompt: prompt, MaxTokens: f.maxTokens}, nil
}

// parseShard reads "I/N" (I from 0); empty means no sharding (N = 0).
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usagef("--shard %q: want I/N with 0 <= I < N, e.g. 0/3", s)
	}
	return i, n, nil
}

// parseStartAt reads an RFC 3339 time or Unix seconds.
func parseStartAt(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil && secs > 0 && secs < 1e11 {
		return time.Unix(0, int64(secs*1e9)), nil
	}
	return time.Time{}, usagef("--start-at %q: want an RFC 3339 time such as 2026-11-29T12:00:00Z, or Unix seconds", s)
}
