package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/workload"
)

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

// profile builds one step's load from the flags as resolved, at the
// step's level (a concurrency, a rate); a replayed trace is the shape
// given, or --rate-shape's, else the flags choose it (shape).
func (f *runFlags) profile(cfg *runConfig, given load.Shape, concurrency int, rate float64) (load.Profile, error) {
	shape := given
	switch {
	case shape != nil:
	case cfg.rateShape != nil:
		shape = cfg.rateShape
	default:
		shape = f.shape(cfg, &concurrency, rate)
	}
	p := load.Profile{
		Shape: shape, Seed: f.seed, Requests: cfg.requests, Duration: f.duration, Warmup: f.warmup, Grace: f.grace,
		Sessions: load.Sessions{Turns: f.turns}, CoolDown: f.coolDown, MaxPrefill: f.maxPrefill,
		Cancel: load.Cancel{Share: f.cancelRate / 100, After: f.cancelDelay},
	}
	if _, open := shape.(load.Pacer); open {
		p.MaxInFlight = concurrency
	}
	if f.turns > 1 {
		p.Sessions.Think = load.Think{Mean: f.thinkTime, Stddev: f.thinkStddev}
	}
	if given != nil {
		p.Warmup = 0 // a trace's requests are the trace's
	}
	turns := max(p.Sessions.Turns, 1) // requests count turns
	if crowd, ok := shape.(load.Crowd); ok && p.Requests == 0 && p.Duration == 0 {
		p.Requests = crowd.Users() * turns // one batch: a session a user
		if cfg.sizesLevels(f) {
			p.Requests = levelRequests(crowd.Users()) * turns
		}
	}
	if p.Warmup < 0 {
		p.Warmup = 0
		// a sweep's levels, and the embedded engine (whose first steps
		// page its weights in and grow its buffers: one run read 256 and
		// the next 690 tok/s), start warm: one request (or session) per
		// slot
		if cfg.sweeping || cfg.embedded {
			p.Warmup = max(p.Limit(), 1) * turns
		}
	}
	if err := p.Validate(); err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// shape is the load shape the flags ask for at a step's concurrency and
// rate: a ramp of rates by request index, a rate (its ramp-up
// included), or users (concurrency, or every request at once for --rate
// inf, which then becomes the users' count).
func (f *runFlags) shape(cfg *runConfig, concurrency *int, rate float64) load.Shape {
	gaps := load.Gaps{Process: cfg.arrivals, Burstiness: cfg.burstiness}
	switch {
	case f.rampStrategy != "" && !f.usersRamp():
		return load.IndexRamp{From: f.rampStart, To: f.rampEnd, Strategy: f.rampStrategy, Requests: cfg.requests, Gaps: gaps}
	case rate > 0 && !math.IsInf(rate, 1):
		return load.Rate{PerSecond: rate, Gaps: gaps, RampUp: f.rampUp}
	}
	users := load.Users{Count: max(*concurrency, 1), RampUp: f.rampUp}
	if math.IsInf(rate, 1) {
		// vLLM's --request-rate inf: every request at once, as many in
		// flight as the concurrency allows, each timed from its send
		// (resolve has made sure --requests is given)
		if *concurrency == 0 {
			users.Count = cfg.requests
		}
	}
	if f.usersRamp() {
		users.RampShape = f.rampStrategy
	}
	if f.turns <= 1 {
		users.Think = load.Think{Mean: f.thinkTime, Stddev: f.thinkStddev}
	}
	*concurrency = users.Count
	return users
}

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

// workload builds the prompt source the flags describe (resolve has
// checked them).
func (f *runFlags) workload(cfg *runConfig, stderr io.Writer) (workload.Source, error) {
	switch {
	case f.accuracyFile != "":
		if f.prompts != "" || f.inputTokens > 0 || len(cfg.modes) > 0 {
			return nil, usagef("--accuracy-file asks its questions as the prompts: drop --prompts, --input-tokens and --seq-dist")
		}
		qs, err := workload.LoadQuestions(f.accuracyFile)
		if err != nil {
			return nil, err
		}
		if !f.quiet {
			fmt.Fprintf(stderr, "questions: %d of %s, each request the next, graded on its answer\n", len(qs), f.accuracyFile)
		}
		return workload.Questions{List: qs, MaxTokens: f.maxTokens}, nil
	case f.prompts != "" && f.columns.Prompt != "":
		items, stats, err := workload.LoadDataset(f.prompts, f.columns, f.maxTokens)
		if err != nil {
			return nil, err
		}
		if !f.quiet || stats.Kept < stats.Rows {
			fmt.Fprintf(stderr, "prompts: %s of %s\n", stats, f.prompts)
		}
		return workload.NewList(items, f.seed)
	case f.inputTokens > 0 || len(cfg.modes) > 0:
		out := f.outputTokens
		if out == 0 {
			out = float64(f.maxTokens)
		}
		return workload.Synthetic{InputTokens: f.inputTokens, InputStddev: f.inputStddev, OutputTokens: out, OutputStddev: f.outputStdev,
			PrefixTokens: f.prefixTokens, PrefixGroups: f.prefixGroup, Modes: cfg.modes, Corpus: cfg.corpus, Seed: f.seed}, nil
	case f.prompts != "" && f.multiTurn:
		items, err := workload.Conversations(f.prompts, f.maxTokens, f.replyLength, f.seed)
		if err != nil {
			return nil, err
		}
		return workload.NewListInOrder(items)
	case f.prompts != "":
		items, stats, err := workload.LoadFileStats(f.prompts, f.maxTokens, f.replyLength)
		if err != nil {
			return nil, err
		}
		if stats.Kept < stats.Rows {
			fmt.Fprintf(stderr, "prompts: %s of %s\n", stats, f.prompts)
		}
		return workload.NewList(items, f.seed)
	}
	return workload.Fixed{Prompt: cfg.prompt, MaxTokens: f.maxTokens}, nil
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

// Levels compared with each other (a sweep's, a factor's) run this many
// waves of their concurrency, and at least minLevelRequests requests,
// unless --requests or --duration says otherwise: one wave made c=1 a
// single 0.1 s request, and a batch factor read "c=16 30.64x c=1" on a
// busy machine.
const (
	levelWaves       = 8
	minLevelRequests = 16
)

// checkLoadFlags: the load's flags that only mean something beside
// others, or that another makes meaningless; what a value itself may be
// is the load package's to say (checkLoad).
func checkLoadFlags(f *runFlags) error {
	indexRamp := f.rampStrategy != "" && !f.usersRamp()
	switch {
	case f.rampStrategy == "" && (f.rampStart != 0 || f.rampEnd != 0):
		return usagef("--ramp-up-start-rps and --ramp-up-end-rps go with --ramp-up-strategy")
	case f.usersRamp() && (f.rampStart != 0 || f.rampEnd != 0):
		return usagef("with --ramp-up-duration, --ramp-up-strategy shapes how --concurrency users rise; --ramp-up-start-rps and --ramp-up-end-rps ramp a rate by request without it: give one of the two")
	case f.usersRamp() && (f.rate != 0 || f.sweepRates != "" || f.concurrency == 0):
		return usagef("with --ramp-up-duration, --ramp-up-strategy shapes how --concurrency users rise: give --concurrency, not a rate (a rate's ramp-up is linear)")
	case indexRamp && (f.rate != 0 || f.sweepRates != "" || f.sweep != "" || f.trace != "" || f.findMax):
		return usagef("--ramp-up-strategy sets each request's rate itself: not with --rate, --sweep, --sweep-rates, --trace or --find-max")
	case f.rampUp != 0 && (f.trace != "" || indexRamp):
		return usagef("--ramp-up-duration raises a rate or users: not with --trace or a rate ramp by request (--ramp-up-start-rps)")
	case f.turns == 0 && (f.thinkTime != 0 || f.thinkStddev != 0) && (f.rate != 0 || f.sweepRates != ""):
		return usagef("--think-time is a user's, from an answer to its next request: it goes with --turns, or with --concurrency users (no --rate)")
	case math.IsInf(f.rate, 1) && f.requests == 0:
		return usagef("--rate inf sends every request at once: give --requests (and --concurrency to cap them)")
	}
	return nil
}

// checkLoad holds the values the load's flags make to the load package's
// own rules before anything runs, each error named by its flags: a Go
// program building the same values meets the same errors.
func checkLoad(f *runFlags, c *runConfig) error {
	for _, part := range []struct {
		flags string
		check func() error
	}{
		{fmt.Sprintf("--turns %d", f.turns), load.Sessions{Turns: f.turns}.Check},
		{"--think-time", load.Think{Mean: f.thinkTime, Stddev: f.thinkStddev}.Check},
		{fmt.Sprintf("--request-cancellation-rate %g --request-cancellation-delay %v", f.cancelRate, f.cancelDelay), load.Cancel{Share: f.cancelRate / 100, After: f.cancelDelay}.Check},
	} {
		if err := part.check(); err != nil {
			return usagef("%s: %v", part.flags, err)
		}
	}
	if c.trace != nil {
		return nil // its shape is the trace's, read when its step is built
	}
	rate := f.rate
	switch {
	case len(c.rates) > 0:
		rate = c.rates[0]
	case c.autoRates > 0:
		rate = 1 // its rate steps are placed once the anchors ran: one stands for them
	}
	p, err := f.profile(c, nil, c.levels[0], rate)
	if err != nil {
		return usagef("%s: %v", shapeFlags(f, p.Shape), err)
	}
	return nil
}

// shapeFlags names the flags that made a load shape.
func shapeFlags(f *runFlags, s load.Shape) string {
	switch s.(type) {
	case load.IndexRamp:
		return fmt.Sprintf("--ramp-up-strategy %s --ramp-up-start-rps %g --ramp-up-end-rps %g", f.rampStrategy, f.rampStart, f.rampEnd)
	case load.Rate:
		if f.sweepRates != "" {
			return "--sweep-rates " + f.sweepRates
		}
		return fmt.Sprintf("--rate %g", f.rate)
	case load.Users:
		return "--concurrency"
	}
	return "--rate-shape " + f.rateShape
}

// sizesLevels says the run compares levels or targets with each other (a
// sweep, a factor, several models or servers), so each step is sized to
// hold its figures steady (levelRequests), not one batch: compared on one
// wave of 4 requests each, models differed by the noise.
func (cfg *runConfig) sizesLevels(f *runFlags) bool {
	return cfg.sweeping || f.factor != "" || targetCount(f) > 1
}
