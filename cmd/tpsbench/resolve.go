package main

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

// runConfig is what run's flags mean once every default and combination
// rule is applied. resolve computes it without changing the flags, so a
// flag means the same whatever was read before it.
type runConfig struct {
	targets metrics.Targets
	headers http.Header
	// levels are the concurrency levels; levelSweep says they sweep
	// (--sweep, or --factor batch's 1, 4, 8, 16, 32), and sweeping that
	// the run has several steps of one target (levels or --sweep-rates)
	levels               []int
	levelSweep, sweeping bool
	arrivals             load.Arrivals
	burstiness           float64
	requests             int  // measured requests a step (0: by --duration or one batch)
	embedded             bool // the run measures the embedded engine
	ignoreEOS            bool
	trace                *traceConfig // --trace's replay, or nil
	prompt               string       // --prompt, or --factor prefix-cache's shared prefix
}

// prefixPrompt is --factor prefix-cache's prompt when --prompt gives none: a
// 512-token shared prefix (each word is one token of the built-in
// vocabulary).
var prefixPrompt = strings.Repeat("the story of the little house ", 85) + "Explain AI"

// factorLevels are --factor batch's levels when --sweep gives none.
var factorLevels = []int{1, 4, 8, 16, 32}

// engineFactors are the --factor experiments that compare engines.
var engineFactors = map[string]bool{"quantization": true, "prefix-cache": true, "model-size": true}

// resolve applies run's rules to the flags; changed tells which flags were
// given. Every rule is here, in order, and table-tested (resolve_test.go).
func resolve(f *runFlags, changed func(string) bool) (*runConfig, error) {
	c := &runConfig{requests: f.requests, prompt: f.prompt}
	if f.factor == "prefix-cache" && !changed("prompt") {
		c.prompt = prefixPrompt
	}
	if err := checkCounts(f); err != nil {
		return nil, err
	}
	if changed("concurrency") && f.concurrency < 1 {
		return nil, usagef("--concurrency %d: want at least 1 (with --rate it caps the requests in flight; leave it out for no cap)", f.concurrency)
	}
	var err error
	if c.targets, err = f.output.targets(); err != nil {
		return nil, err
	}
	if c.arrivals, c.burstiness, err = resolveArrivals(f, changed); err != nil {
		return nil, err
	}
	if c.headers, err = parseHeaders(f.headers); err != nil {
		return nil, err
	}
	if c.levels, c.levelSweep, err = resolveLevels(f, changed); err != nil {
		return nil, err
	}
	c.sweeping = c.levelSweep || f.sweepRates != ""
	if f.showTokens {
		if f.noStream || c.sweeping || f.rate > 0 || f.duration > 0 || f.requests > 1 || f.concurrency > 1 || len(f.models) > 1 || len(f.targets) > 1 {
			return nil, usagef("--show-tokens measures one streamed request: drop --sweep, --rate, --duration, --no-stream and counts above 1")
		}
		c.requests = 1
	}
	if err := checkFindMax(f, c); err != nil {
		return nil, err
	}
	if c.trace, err = resolveTrace(f, changed); err != nil {
		return nil, err
	}
	// no server named, or an experiment across engines: the embedded engine,
	// whose requests make exactly --max-tokens unless told otherwise
	c.embedded = engineFactors[f.factor] || (f.url == "" && len(f.targets) == 0)
	// a replay makes the trace's output lengths, where the server lets it
	c.ignoreEOS = f.ignoreEOS || ((c.embedded || c.trace != nil) && !changed("ignore-eos"))
	return c, nil
}

// checkCounts refuses counts and durations out of range, and outputs that
// would overwrite an input.
func checkCounts(f *runFlags) error {
	if f.maxTokens < 1 || f.maxTokens > record.MaxTokens {
		return usagef("--max-tokens %d: want 1 to %d", f.maxTokens, record.MaxTokens)
	}
	if f.requests < 0 || f.concurrency < 0 || f.rate < 0 || f.duration < 0 || f.timeout < 0 || f.grace < 0 {
		return usagef("--requests, --concurrency, --rate, --duration, --timeout and --grace must not be negative")
	}
	return checkOutputs([]namedPath{{"--records", f.records}, {"--out", f.output.out}},
		[]namedPath{{"--prompts", f.prompts}, {"--scenario", f.scenario}, {"--tokenizer", f.tokenizer}, {"--engine-model", f.engine.model}, {"--trace", f.trace}},
		f.output.force)
}

// resolveArrivals: --burstiness alone means gamma arrivals; gamma without
// it is Poisson's shape (burstiness 1, vLLM's default); the other
// processes have no burstiness to set.
func resolveArrivals(f *runFlags, changed func(string) bool) (load.Arrivals, float64, error) {
	arrivals, burstiness := load.Arrivals(f.arrivals), f.burstiness
	if changed("burstiness") && !changed("arrivals") {
		arrivals = load.Gamma
	}
	switch arrivals {
	case load.Gamma:
		if !changed("burstiness") {
			burstiness = 1
		}
	case load.Poisson, load.Constant:
		if changed("burstiness") {
			return "", 0, usagef("--burstiness shapes gamma arrivals: drop --arrivals %s", f.arrivals)
		}
	default:
		return "", 0, usagef("--arrivals %q: want poisson, constant or gamma", f.arrivals)
	}
	return arrivals, burstiness, nil
}

// resolveLevels gives the concurrency levels, and whether they sweep:
// --sweep's, else --factor batch's, else --concurrency alone.
func resolveLevels(f *runFlags, changed func(string) bool) ([]int, bool, error) {
	switch {
	case f.sweep != "":
		if changed("concurrency") {
			return nil, false, usagef("give --sweep or --concurrency, not both")
		}
		levels, err := parseLevels(f.sweep)
		return levels, err == nil, err
	case f.factor == "batch":
		return factorLevels, true, nil
	}
	return []int{f.concurrency}, false, nil
}

// checkFindMax: --find-max needs targets to search by and searches one
// target's concurrency, nothing else.
func checkFindMax(f *runFlags, c *runConfig) error {
	if !f.findMax {
		return nil
	}
	switch {
	case len(c.targets.List) == 0:
		return usagef("--find-max needs targets: --slo (e.g. request_tps=30,ttft=1s) or --target-use")
	case f.sweep != "" || f.factor != "" || f.rate > 0 || f.sweepRates != "":
		return usagef("--find-max searches one target's concurrency: drop --sweep, --sweep-rates, --factor and --rate")
	case f.maxConc < 1:
		return usagef("--find-max-limit must be at least 1")
	}
	return nil
}

// applyMaxConcurrency makes --max-concurrency what vLLM's benchmark makes
// it, the cap on requests in flight, by setting --concurrency (which is
// that cap with --rate): it once bounded only --find-max, so --rate inf
// --max-concurrency 4 ran every request at once.
func (f *runFlags) applyMaxConcurrency(fs *pflag.FlagSet) error {
	if !fs.Changed("max-concurrency") {
		return nil
	}
	switch {
	case f.findMax:
		return usagef("--max-concurrency caps the requests in flight; --find-max's highest level to try is --find-max-limit")
	case f.maxInFlight < 1:
		return usagef("--max-concurrency %d: want at least 1", f.maxInFlight)
	case fs.Changed("concurrency") && f.concurrency != f.maxInFlight:
		return usagef("--concurrency %d and --max-concurrency %d: they are the same cap, give one", f.concurrency, f.maxInFlight)
	}
	return fs.Set("concurrency", strconv.Itoa(f.maxInFlight))
}
