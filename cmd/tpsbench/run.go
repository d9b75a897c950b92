package main

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/outfile"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/report"
	"github.com/tpsbench/tpsbench/workload"
)

// runFlags are the run command's flags, as parsed.
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
	tls       client.TLSOptions
	headers   []string
	timeout   time.Duration
	ignoreEOS bool
	temp      float64
	// sampling parameters passed on, each only when given
	topP, minP, freqPenalty, presPenalty, repPenalty float64
	topK                                             int
	stop                                             []string
	extraBody                                        string
	readyTimeout                                     time.Duration
	maxErrors                                        int

	prompt    string
	maxTokens int

	prompts                   string
	replyLength, multiTurn    bool
	inputTokens, inputStddev  float64
	outputTokens, outputStdev float64
	prefixTokens, prefixGroup int
	columns                   workload.Columns
	specBench                 string
	seqDist                   string
	corpus                    string
	replicas                  []string
	repeat                    int
	rampUp, coolDown          time.Duration
	batchSize                 int
	mediaFlags
	balance                 string
	loraModules, loraAssign string
	turns                   int
	thinkTime, thinkStddev  time.Duration
	cancelRate              float64
	cancelDelay             time.Duration
	rampStrategy            string
	rampStart, rampEnd      float64
	rateShape               string

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

	records       string
	showTokens    bool
	quiet         bool
	factor        string
	shard         string
	startAt       string
	findMax       bool // a search: --find-max, or --search-space
	maxConc       int
	searchSpace   []string
	searchRuns    int
	searchTime    time.Duration
	maxInFlight   int // --max-concurrency: --concurrency under vLLM's name
	maxPrefill    int // --prefill-concurrency
	serverMet     string
	metricsAt     string
	otelURL       string // an OpenTelemetry collector the run is exported to
	accuracyFile  string // a question set asked as the prompts, graded
	plotDir       string // where the run's charts go as PNG files
	metricsLinger time.Duration
	gpuMetrics    string         // DCGM exporter's URL
	cpuEnergy     bool           // read RAPL
	sent          map[string]any // what every request carried besides its prompt, for the report
	// engineCores: the cores of this machine when an engine the run
	// started took them all, else 0
	engineCores int
	repeats     []metrics.Repeat
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
	addTLSFlags(fl, &f.tls)
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (sent as the API sends it, never printed or recorded; with --api anthropic the default is ANTHROPIC_API_KEY)")
	fl.StringArrayVar(&f.headers, "header", nil, "extra request header K:V; repeatable")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Minute, "per-request timeout (0 for none)")
	fl.BoolVar(&f.ignoreEOS, "ignore-eos", false, "send ignore_eos: true so every request generates exactly --max-tokens (vLLM, SGLang, llama.cpp server, tpsbench serve)")
	fl.Float64Var(&f.temp, "temperature", -1, "sampling temperature to send (default: the server's)")
	fl.Lookup("temperature").DefValue = "0" // -1 stands for unset: help says the default in words
	fl.Float64Var(&f.topP, "top-p", 0, "send top_p, nucleus sampling's share (default: the server's)")
	fl.IntVar(&f.topK, "top-k", 0, "send top_k (default: the server's)")
	fl.Float64Var(&f.minP, "min-p", 0, "send min_p (default: the server's)")
	fl.Float64Var(&f.freqPenalty, "frequency-penalty", 0, "send frequency_penalty (default: the server's)")
	fl.Float64Var(&f.presPenalty, "presence-penalty", 0, "send presence_penalty (default: the server's)")
	fl.Float64Var(&f.repPenalty, "repetition-penalty", 0, "send repetition_penalty (repeat_penalty to llama.cpp and Ollama; default: the server's)")
	fl.StringArrayVar(&f.stop, "stop", nil, "a stop string to send (repeat for several; stop_sequences to Anthropic's API)")
	fl.IntVar(&f.maxErrors, "max-errors", 0, "stop a step early once this many of its requests have failed (those in flight get --grace); the run goes on to its next step; 0 never stops")
	fl.DurationVar(&f.readyTimeout, "ready-check-timeout", 0, "before the first step, wait up to this long for each server to answer (a server loading its model answers 503); 0 does not wait")
	fl.StringVar(&f.extraBody, "extra-body", "", `a JSON object whose fields go into every request's body, over tpsbench's own, e.g. '{"chat_template_kwargs":{"enable_thinking":false}}'`)
	fl.StringVar(&f.prompt, "prompt", "Explain AI", "prompt to send")
	fl.IntVar(&f.maxTokens, "max-tokens", 100, "output token budget per request")
	fl.StringVar(&f.prompts, "prompts", "", "prompts file: one a line, JSON lines with prompt or messages (and max_tokens), or a ShareGPT JSON array")
	f.defineShapeFlags(fl)
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
	fl.IntVar(&f.maxPrefill, "prefill-concurrency", 0, "at most this many requests sent and still waiting for their first token (AIPerf's): a run of long prompts that does not swamp the server with prefills; the wait shows as client lag; 0 no cap")
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
	fl.StringVar(&f.plotDir, "plot", "", "after the report, draw the run's charts as PNG files into this folder (as tpsbench plot does from the records; AIPerf's auto-plot): TTFT and ITL against load, throughput against interactivity, rolling TPS, sessions")
	fl.StringVar(&f.accuracyFile, "accuracy-file", "", "ask a question set as the prompts, under the run's load, and grade each answer (lm-eval's forms: JSON lines, CSV or Parquet of question, choices and answer as MMLU's, or question and answer for exact match): each step's accuracy beside its TPS, and with several steps how many answers match the first step's (batch invariance; ask at --temperature 0)")
	fl.StringVar(&f.otelURL, "otel-url", "", "export the run to an OpenTelemetry collector over OTLP/HTTP (JSON), e.g. http://127.0.0.1:4318 (AIPerf's --otel-url; host or host:port takes port 4318): a span per request with its timings and HTTP phases, and the GenAI conventions' client metrics per model and step, every 10 s and at the end; a collector that fails costs a warning, not the run")
	fl.StringVar(&f.metricsAt, "metrics-addr", "", "serve the run's live metrics for Prometheus at this address, e.g. 127.0.0.1:9464 (/metrics)")
	fl.DurationVar(&f.metricsLinger, "metrics-linger", 30*time.Second, "with --metrics-addr, when something scraped during the run: how long to wait after it for the scrape that sees its final counts (0: stop at once)")
	fl.StringVar(&f.gpuMetrics, "gpu-metrics", "", "NVIDIA's DCGM exporter (its /metrics URL), or nvidia-smi for this machine's GPUs, read around each step: the GPUs' joules, joules per output token and tokens per joule")
	fl.BoolVar(&f.cpuEnergy, "cpu-energy", false, "read the CPU packages' energy (Linux RAPL, /sys/class/powercap) around each step, for the embedded engine: joules and joules per token, the client's work included; the report says when it cannot be read")
	fl.StringVar(&f.serverMet, "server-metrics", "", "the server's Prometheus endpoint (vLLM, SGLang, TGI, tpsbench serve), scraped around each step to report its own view; 'engine' for the embedded one")
	fl.BoolVar(&f.findMax, "find-max", false, "search the highest concurrency at which every target (--slo, --target-use) holds: doubling, then bisecting")
	fl.IntVar(&f.maxConc, "find-max-limit", 256, "with --find-max: the highest concurrency to try")
	fl.StringArrayVar(&f.searchSpace, "search-space", nil, "search the highest value of a load setting at which every target (--slo, --target-use) holds, e.g. concurrency:1,512 or rate:0.5,64 (AIPerf's form; :int and :real may follow): doubling from the lowest, then bisecting to within 10%; given twice (concurrency and rate), each in turn, the other held at its value found; every probe is a step of the report")
	fl.IntVar(&f.searchRuns, "search-max-iterations", 0, "with --search-space or --find-max: measure at most this many values (AIPerf's flag; 0: no bound)")
	fl.DurationVar(&f.searchTime, "search-max-time", 0, "with --search-space or --find-max: begin no probe once this long has passed since the search began (the first always runs; 0: no bound)")
	fl.IntVar(&f.maxInFlight, "max-concurrency", 0, "the cap on requests in flight, as vLLM's benchmark names it: the same as --concurrency (with --rate, the cap)")
	fl.StringVar(&f.shard, "shard", "", "run share I of N of the load (I from 0, e.g. a Kubernetes JOB_COMPLETION_INDEX), as I/N; tpsbench merge combines the shards' records")
	fl.StringVar(&f.startAt, "start-at", "", "wait until this wall-clock time (RFC 3339, or Unix seconds) before starting, so that shards start together")
	fl.StringVar(&f.factor, "factor", "", "run one of the experiments of docs/design.md on the engine: batch (sizes 1-32), quantization (F16, Q8_0, Q4_0), prefix-cache (cold vs warm on a 512-token prefix), model-size (15m vs 110m)")
	fl.StringVar(&f.trace, "trace", "", "replay a trace open loop: each request at its recorded time, with a prompt of its input length (shared prefixes where the trace marks them) and max_tokens of its output length; a Mooncake JSONL trace, BurstGPT's CSV, or tpsbench records (of run or proxy)")
	fl.StringVar(&f.traceFormat, "trace-format", "auto", "format of --trace: auto, mooncake, burstgpt or records")
	fl.Float64Var(&f.traceSpeed, "trace-speed", 1, "replay the trace this many times faster (0.5: half as fast)")
	fl.StringVar(&f.traceWindow, "trace-window", "", "replay only the requests that arrived in FROM-TO of the trace (durations, e.g. 10m-20m, 30s-), timed from FROM")
	fl.Float64Var(&f.traceScale, "trace-input-scale", 1, "multiply the trace's prompt lengths by this (0.5: half as long), for a server of a shorter context")
	fl.IntVar(&f.traceMaxInput, "trace-max-input-tokens", 0, "clip longer prompts of the trace to this many tokens (each request is also clipped to fit the context the server gives at /v1/models)")
	f.output.register(cmd)
	f.engine.register(cmd, "engine-")
	return cmd
}

// runRun is the run command: it resolves the flags into a plan, starts
// what the plan measures and the views that watch it, runs it, and
// renders what it measured.
func runRun(cmd *cobra.Command, f *runFlags) error {
	cfg, err := f.resolveCommand(cmd)
	if err != nil {
		return err
	}
	key := os.Getenv(cfg.apiKeyEnv)
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
		if tgts, err = f.serverTargets(ctx, cfg, key, cmd.ErrOrStderr()); err != nil {
			return err
		}
	}
	clock := record.NewClock()
	steps, err := f.newStepBuilder(ctx, cfg, tgts, key, clock, cmd.OutOrStdout(), cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer steps.close()
	plan := f.planSettings(cfg)
	plan.Energy, plan.Clock, plan.Abort = f.energyMeter(cfg.headers), clock, abort
	closeOutputs, err := f.wirePlan(ctx, &plan, cfg, steps, tgts, phases, engineURLs, key, autoRates, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer closeOutputs()
	sess := tpsbench.NewSession(plan) // every strategy's steps get the outputs wired above
	if err := sess.Start(); err != nil {
		return err
	}
	defer sess.Close() // the exporter serves until the report is out
	f.waitForStart(ctx, cfg.startAt, cmd.ErrOrStderr())
	if f.findMax {
		return f.runFindMax(ctx, cmd, caught, sess, cfg, tgts, steps.build)
	}
	res, note, runErr := f.measure(ctx, cmd, cfg, sess, plan.Steps, steps, tgts[0])
	sess.Finish() // the live view ends before the report prints
	f.sent = steps.sent
	return f.finish(cmd, res, note, runErr, steps.tokens, caught)
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
	rep.Sent = f.sent
	rep.Repeats = f.repeats
	rep.Interrupted = res.Interrupted
	rep.Note = note
	renderErr := f.output.render(cmd.OutOrStdout(), rep)
	if f.plotDir != "" {
		if err := writePlots(f.plotDir, f.output.force, []report.PlotRun{{Name: "run", Steps: res.Steps}}, stderr); err != nil && renderErr == nil {
			renderErr = err // the report is out; the plots' failure is the run's exit
		}
	}
	warnBusyClient(stderr, res.Steps)
	noteOpenedConnections(stderr, res.Steps)
	noteClientMemory(stderr, res.Steps)
	warnEngineCrowdsClient(stderr, res.Steps, f.engineCores)
	warnStoppedEarly(stderr, res.Steps)
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

// planSettings is what the flags make of the settings a plan's steps
// share; resolve holds them to the library's rules before anything runs.
func (f *runFlags) planSettings(cfg *runConfig) tpsbench.Plan {
	return tpsbench.Plan{Targets: cfg.targets, Convention: f.output.convention, Percentiles: f.output.percentileList,
		SliceDuration: f.output.slice, MaxErrors: f.maxErrors, MaxErrorRate: f.output.maxErrorRate}
}
