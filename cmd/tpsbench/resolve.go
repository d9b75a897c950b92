package main

import (
	"crypto/tls"
	"encoding/json"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// runConfig is what run's flags mean once every default and combination
// rule is applied. resolve computes it without changing the flags, so a
// flag means the same whatever was read before it.
type runConfig struct {
	targets metrics.Targets
	search  []tpsbench.Dimension // what --find-max or --search-space varies
	headers http.Header
	tls     *tls.Config           // --insecure, --ca-cert, --client-cert and --client-key
	modes   []workload.LengthMode // --seq-dist
	corpus  [][]string            // --corpus
	// imageSizes are --image-size's, a step each when several, and
	// images their synthetic images (or --image-dir's, one pool); audio
	// and videos are the pools of the audio and the videos requests
	// carry, synthetic or from a folder
	imageSizes    []workload.ImageSize
	images        [][]content.Media
	audio, videos []content.Media
	// notes are what resolving read that a user should know (a media
	// folder's files kept and left out), printed before the run
	notes []string
	// lora are --lora-modules' models and weights
	lora        []string
	loraWeights []float64
	// levels are the concurrency levels; levelSweep says they sweep
	// (--sweep, or --factor batch's 1, 4, 8, 16, 32), and sweeping that
	// the run has several steps of one target (levels or --sweep-rates)
	levels               []int
	levelSweep, sweeping bool
	arrivals             load.Process
	rateShape            load.Pacer // --rate-shape's, or nil
	burstiness           float64
	requests             int  // measured requests a step (0: by --duration or one batch)
	embedded             bool // the run measures the embedded engine
	ignoreEOS            bool
	trace                *traceConfig // --trace's replay, or nil
	prompt               string       // --prompt, or --factor prefix-cache's shared prefix
	// rates are --sweep-rates' rates; with auto, autoRates is how many to
	// place between its anchors, the second of which sends flood at once
	specs []target // --target's, without their APIs
	// counter counts responses without usage (--tokenizer, or cl100k for
	// whole responses)
	counter          client.TextCounter
	rates            []float64
	autoRates, flood int
	apiKeyEnv        string // the variable holding the API key
	sampling         client.Sampling
	extra            map[string]any // --extra-body's fields
	startAt          time.Time      // --start-at, or zero
	shardI, shardN   int            // --shard I/N; shardN 0 when not sharded
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
// startAtStale is how long past --start-at may be: a pod may start a
// little late (it is warned), a setting from another day is refused.
const startAtStale = time.Minute

func resolve(f *runFlags, changed func(string) bool) (*runConfig, error) {
	c := &runConfig{requests: f.requests, prompt: f.prompt}
	if f.factor == "prefix-cache" && !changed("prompt") {
		c.prompt = prefixPrompt
	}
	if err := checkCounts(f, changed); err != nil {
		return nil, err
	}
	if changed("concurrency") && f.concurrency < 1 {
		return nil, usagef("--concurrency %d: want at least 1 (with --rate it caps the requests in flight; leave it out for no cap)", f.concurrency)
	}
	var err error
	if c.targets, err = f.output.targets(); err != nil {
		return nil, err
	}
	if err := f.planSettings(c).CheckSettings(); err != nil {
		return nil, usageError{err}
	}
	if c.arrivals, c.burstiness, err = resolveArrivals(f, changed); err != nil {
		return nil, usagef("--arrivals %s --burstiness %g: %v", c.arrivals, c.burstiness, err)
	}
	if c.rateShape, err = resolveRateShape(f, load.Gaps{Process: c.arrivals, Burstiness: c.burstiness}); err != nil {
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
	if err := checkWorkload(f); err != nil {
		return nil, err
	}
	if c.specs, err = parseTargetSpecs(f); err != nil {
		return nil, err
	}
	if c.counter, err = textCounter(f.tokenizer, !f.noStream); err != nil {
		return nil, usageError{err}
	}
	if c.rates, c.autoRates, c.flood, err = resolveSweepRates(f, changed, c.levelSweep); err != nil {
		return nil, err
	}
	if err := checkLoadFlags(f); err != nil {
		return nil, err
	}
	// no server named, or an experiment across engines: the embedded engine,
	// whose requests make exactly --max-tokens unless told otherwise
	c.embedded = engineFactors[f.factor] || (f.url == "" && len(f.targets) == 0)
	if err := checkEngine(f, changed, c); err != nil {
		return nil, err
	}
	// a replay makes the trace's output lengths, where the server lets it
	c.ignoreEOS = f.ignoreEOS || ((c.embedded || c.trace != nil) && !changed("ignore-eos"))
	if err := checkMeters(f, c); err != nil {
		return nil, err
	}
	if c.sampling, err = resolveSampling(f, changed); err != nil {
		return nil, err
	}
	if c.extra, err = parseExtraBody(f.extraBody); err != nil {
		return nil, err
	}
	// Anthropic's clients keep their key in ANTHROPIC_API_KEY
	c.apiKeyEnv = f.apiKeyEnv
	if f.api == client.APIAnthropic && !changed("api-key-env") {
		c.apiKeyEnv = "ANTHROPIC_API_KEY"
	}
	if err := resolveSpread(f, c); err != nil {
		return nil, err
	}
	if err := resolveSources(f, c); err != nil {
		return nil, err
	}
	if err := resolveStartAt(f, c); err != nil {
		return nil, err
	}
	if c.shardI, c.shardN, err = parseShard(f.shard); err != nil {
		return nil, err
	}
	if err := checkLoad(f, c); err != nil {
		return nil, err
	}
	return c, nil
}

// targetCount is how many targets the flags name: each --target, else
// each --model of the one server.
func targetCount(f *runFlags) int {
	if len(f.targets) > 0 {
		return len(f.targets)
	}
	return max(1, len(f.models))
}

// checkWorkload: synthetic lengths finite and in range, and the prompt
// flags that go together.
func checkWorkload(f *runFlags) error {
	lengths := workload.Synthetic{InputTokens: f.inputTokens, InputStddev: f.inputStddev, OutputTokens: f.outputTokens, OutputStddev: f.outputStdev,
		PrefixTokens: f.prefixTokens, PrefixGroups: f.prefixGroup}
	if err := lengths.Check(); err != nil {
		return usagef("--input-tokens, --output-tokens, their deviations, --prefix-tokens and --prefix-groups: %v", err)
	}
	if err := resolveSpecBench(f); err != nil {
		return err
	}
	switch {
	case f.seqDist != "" && (f.inputTokens > 0 || f.outputTokens > 0 || f.inputStddev > 0 || f.outputStdev > 0 || f.prompts != ""):
		return usagef("--seq-dist gives every length: not with --input-tokens, --output-tokens, their deviations or --prompts")
	case f.inputTokens > 0 && f.prompts != "":
		return usagef("give --prompts or --input-tokens, not both")
	case f.inputTokens == 0 && f.seqDist == "" && (f.prefixTokens > 0 || f.outputTokens > 0):
		return usagef("--prefix-tokens and --output-tokens go with --input-tokens")
	case f.multiTurn && (f.prompts == "" || f.inputTokens > 0):
		return usagef("--multi-turn goes with --prompts FILE (a ShareGPT file)")
	case strings.EqualFold(filepath.Ext(f.prompts), ".parquet") && f.columns.Prompt == "":
		return usagef("--prompts %s is Parquet: name the column of its prompts with --prompt-column (or --spec-bench-category for Spec-Bench's file)", f.prompts)
	case f.columns.Prompt != "" && f.prompts == "":
		return usagef("--prompt-column reads a dataset: give it with --prompts FILE")
	case f.columns.Prompt == "" && (f.columns.System != "" || f.columns.Output != "" || f.columns.Image != "" || f.columns.Audio != "" || f.columns.Video != ""):
		return usagef("--system-column, --output-column and the media columns map a dataset's columns: give --prompt-column too")
	case f.columns.Prompt != "" && (f.multiTurn || f.replyLength):
		return usagef("--prompt-column maps a dataset's own columns: --multi-turn and --sharegpt-output-len read ShareGPT files")
	case f.turns > 0 && f.multiTurn:
		return usagef("--multi-turn replays a ShareGPT file's own conversations: --turns makes synthetic ones, give one of them")
	}
	return nil
}

// resolveSweepRates reads --sweep-rates: rates to step through, or
// auto[:N], GuideLLM's sweep of N rates (8 by default) between a
// synchronous step and a throughput step of flood requests at once
// (--requests, or --concurrency).
func resolveSweepRates(f *runFlags, changed func(string) bool, levelSweep bool) (rates []float64, autoRates, flood int, err error) {
	if f.sweepRates == "" {
		return nil, 0, 0, nil
	}
	if levelSweep || changed("rate") || f.factor != "" || f.findMax {
		return nil, 0, 0, usagef("--sweep-rates steps through rates: drop --sweep, --rate, --factor and --find-max")
	}
	n, auto := strings.CutPrefix(f.sweepRates, "auto")
	if !auto {
		for _, p := range strings.Split(f.sweepRates, ",") {
			r, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || !(r > 0) || math.IsInf(r, 0) {
				return nil, 0, 0, usagef("--sweep-rates %q: want request rates such as 1,2,4,8, or auto", f.sweepRates)
			}
			rates = append(rates, r)
		}
		return rates, 0, 0, nil
	}
	switch {
	case f.shard != "":
		// each shard would place its rates by its own anchors
		return nil, 0, 0, usagef("--sweep-rates auto places rates by a whole server's speed: give the shards explicit rates")
	case targetCount(f) > 1:
		return nil, 0, 0, usagef("--sweep-rates auto places rates by one server's speed: give one target")
	}
	autoRates = 8 // with the two anchors, GuideLLM's ten steps
	if n != "" {
		v, err := strconv.Atoi(strings.TrimPrefix(n, ":"))
		if err != nil || !strings.HasPrefix(n, ":") || v < 1 || v > 100 {
			return nil, 0, 0, usagef("--sweep-rates %q: want auto, or auto:N with N rates from 1 to 100", f.sweepRates)
		}
		autoRates = v
	}
	flood = f.requests
	if changed("concurrency") {
		flood = f.concurrency
	}
	if flood < 1 {
		return nil, 0, 0, usagef("--sweep-rates auto with --duration: give --concurrency for its throughput step")
	}
	return nil, autoRates, flood, nil
}

// checkEngine: the engine's flags only where the engine runs, an API it
// serves, and a --factor it knows, which when it compares engines
// measures no --url.
func checkEngine(f *runFlags, changed func(string) bool, c *runConfig) error {
	if f.factor != "" && !slices.Contains(engine.FactorNames, f.factor) {
		return usagef("--factor %q: want %s", f.factor, strings.Join(engine.FactorNames, ", "))
	}
	if engineFactors[f.factor] && (f.url != "" || len(f.targets) > 0) {
		return usagef("--factor %s compares engine configurations: drop --url and --target", f.factor)
	}
	if !c.embedded {
		fs, _ := engineFlagSet("engine-")
		var given string
		fs.VisitAll(func(fl *pflag.Flag) {
			if given == "" && changed(fl.Name) {
				given = fl.Name
			}
		})
		if given != "" {
			return usagef("--%s applies to the embedded engine, which runs only without --url or --target", given)
		}
		return nil
	}
	if api := engineAPI(f.api); api != client.APIChat && api != client.APICompletions && api != client.APIEmbeddings {
		return usagef("--api %s: the embedded engine serves chat, completions and embeddings; measure a server that speaks %s with --url", f.api, f.api)
	}
	return nil
}

// checkCounts refuses counts and durations out of range, and outputs that
// would overwrite an input.
func checkCounts(f *runFlags, changed func(string) bool) error {
	if f.maxTokens < 1 || f.maxTokens > record.MaxTokens {
		return usagef("--max-tokens %d: want 1 to %d", f.maxTokens, record.MaxTokens)
	}
	for _, c := range []struct {
		flag     string
		value    any
		negative bool
	}{
		{"requests", f.requests, f.requests < 0}, {"concurrency", f.concurrency, f.concurrency < 0}, {"prefill-concurrency", f.maxPrefill, f.maxPrefill < 0}, {"rate", f.rate, f.rate < 0},
		{"duration", f.duration, f.duration < 0}, {"timeout", f.timeout, f.timeout < 0}, {"grace", f.grace, f.grace < 0},
		{"ready-check-timeout", f.readyTimeout, f.readyTimeout < 0}, {"max-errors", f.maxErrors, f.maxErrors < 0},
	} {
		if c.negative {
			return usagef("--%s %v: must not be negative", c.flag, c.value)
		}
	}
	// a value given that means nothing was asked: said, not run as one
	// request (--rate 0 and --requests 0 ran one and exited 0)
	switch {
	case changed("rate") && f.rate == 0:
		return usagef("--rate 0: want requests per second above 0 (leave --rate out for a closed loop of --concurrency users)")
	case changed("requests") && f.requests == 0:
		return usagef("--requests 0: want at least 1 (leave --requests out for one batch of --concurrency, or give --duration)")
	case changed("prompt") && strings.TrimSpace(f.prompt) == "":
		return usagef("--prompt %q: an empty prompt asks for nothing; give some text", f.prompt)
	}
	return checkOutputs([]namedPath{{"--records", f.records}, {"--out", f.output.out}},
		[]namedPath{{"--prompts", f.prompts}, {"--scenario", f.scenario}, {"--tokenizer", f.tokenizer}, {"--engine-model", f.engine.model}, {"--trace", f.trace}},
		f.output.force)
}

// resolveArrivals: --burstiness alone means gamma arrivals, and gamma
// without it is Poisson's shape (burstiness 1, vLLM's default); which
// go together is load.Gaps's to say (checkLoad).
func resolveArrivals(f *runFlags, changed func(string) bool) (load.Process, float64, error) {
	arrivals, burstiness := load.Process(f.arrivals), f.burstiness
	if changed("burstiness") && !changed("arrivals") {
		arrivals = load.Gamma
	}
	if arrivals == load.Gamma && !changed("burstiness") {
		burstiness = 1
	}
	return arrivals, burstiness, load.Gaps{Process: arrivals, Burstiness: burstiness}.Check()
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

// checkFindMax: a search (--find-max, --search-space) needs targets to
// search by and varies one target's load, nothing else; --search-space
// makes one as --find-max does, over the dimension it names.
func checkFindMax(f *runFlags, c *runConfig) error {
	if len(f.searchSpace) > 0 {
		if f.findMax {
			return usagef("--find-max is --search-space concurrency:1,%d: give one", f.maxConc)
		}
		for _, s := range f.searchSpace {
			dim, err := tpsbench.ParseDimension(s)
			if err != nil {
				return usagef("--search-space: %v", err)
			}
			for _, other := range c.search {
				if other.Name == dim.Name {
					return usagef("--search-space: %s given twice", dim.Name)
				}
			}
			c.search = append(c.search, dim)
			if dim.Name == tpsbench.DimConcurrency {
				f.maxConc = int(dim.Hi) // the engine's slots are sized by it
			}
		}
		f.findMax = true
	} else if f.findMax {
		c.search = []tpsbench.Dimension{{Name: tpsbench.DimConcurrency, Lo: 1, Hi: float64(f.maxConc)}}
	}
	if !f.findMax {
		if f.searchRuns != 0 || f.searchTime != 0 {
			return usagef("--search-max-iterations and --search-max-time bound a search: give --search-space (or --find-max)")
		}
		return nil
	}
	switch {
	case len(c.targets.List) == 0:
		return usagef("a search (--find-max, --search-space) needs targets: --slo (e.g. request_tps=30,ttft=1s) or --target-use")
	case f.sweep != "" || f.factor != "" || f.rate > 0 || f.sweepRates != "":
		return usagef("a search (--find-max, --search-space) varies one target's load: drop --sweep, --sweep-rates, --factor and --rate")
	case targetCount(f) > 1:
		return usagef("a search (--find-max, --search-space) varies one target's load: drop extra models and targets")
	case f.maxConc < 1:
		return usagef("--find-max-limit must be at least 1")
	case f.searchRuns < 0 || f.searchTime < 0:
		return usagef("--search-max-iterations %d, --search-max-time %v: want neither negative (0: no bound)", f.searchRuns, f.searchTime)
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

// resolveSampling is the sampling parameters given, each finite; those not
// given are the server's to choose.
func resolveSampling(f *runFlags, changed func(string) bool) (client.Sampling, error) {
	var s client.Sampling
	for _, p := range []struct {
		flag string
		v    float64
		dst  **float64
	}{{"top-p", f.topP, &s.TopP}, {"min-p", f.minP, &s.MinP}, {"frequency-penalty", f.freqPenalty, &s.FrequencyPenalty},
		{"presence-penalty", f.presPenalty, &s.PresencePenalty}, {"repetition-penalty", f.repPenalty, &s.RepetitionPenalty}} {
		if !changed(p.flag) {
			continue
		}
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) {
			return s, usagef("--%s: want a finite number", p.flag)
		}
		v := p.v
		*p.dst = &v
	}
	if changed("top-k") {
		k := f.topK
		s.TopK = &k
	}
	s.Stop = f.stop
	return s, nil
}

// parseExtraBody reads --extra-body: a JSON object (numbers kept as
// written).
func parseExtraBody(raw string) (map[string]any, error) {
	if raw == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil || dec.More() {
		return nil, usagef(`--extra-body: want one JSON object, such as '{"priority": 1}'`)
	}
	return m, nil
}
