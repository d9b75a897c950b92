package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// stepBuilder makes a run's steps: one a target and phase, each with its
// own client on the run's clock. The plain run, the rate sweeps and
// find-max all build through it, so their steps differ only in phase.
type stepBuilder struct {
	f       *runFlags
	cfg     *runConfig
	targets int // how many targets the run compares; labels name one when several
	key     string
	clock   *record.Clock
	src     workload.Source
	counter client.TextCounter
	tokens  *tokenPrinter // --show-tokens, or nil
	shardI  int
	shardN  int // 0: no --shard
	clients []*client.HTTP
	sent    map[string]any // what the first client sends besides prompts (report.Report.Sent)
	replays []*replayStep  // --trace's, a step each
	// contexts are the targets' contexts (contextOf), by target
	contexts map[string]int
	stderr   io.Writer
}

// contextOf is the context the target's server gives its model (0 when
// it gives none), asked once.
func (b *stepBuilder) contextOf(t target) int {
	key := t.name + "\x00" + t.url + "\x00" + t.model
	if n, ok := b.contexts[key]; ok {
		return n
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, _ := client.ModelContext(ctx, t.url, t.api, t.model, b.key, b.cfg.headers)
	if b.contexts == nil {
		b.contexts = map[string]int{}
	}
	b.contexts[key] = n
	if b.cfg.trace != nil && !b.f.quiet {
		// before the run: a trace of prompts longer than the context
		// failed most of its requests without a word
		if read, clipped, first := b.cfg.trace.preview(n); clipped > 0 {
			bound := "the longest prompt a replay makes (--trace-max-input-tokens)"
			if n > 0 {
				bound = fmt.Sprintf("the context of %d tokens the server gives", n)
			}
			fmt.Fprintf(b.stderr, "trace: %d of the first %d requests do not fit %s (the first on line %d): they are replayed shorter, to fit; --trace-input-scale scales every prompt instead\n",
				clipped, read, bound, first)
		}
	}
	return n
}

func (b *stepBuilder) build(t target, ph phase) (tpsbench.Step, error) {
	f := b.f
	c, rate := ph.concurrency, f.rate
	if ph.rate > 0 {
		rate = ph.rate
	}
	src := b.src
	var shape load.Shape
	if b.cfg.trace != nil {
		// the trace's schedule and prompts; its shard is its entries'
		rs, err := b.cfg.trace.newReplay(b.src.(workload.Synthetic), b.shardI, b.shardN, b.contextOf(t))
		if err != nil {
			return tpsbench.Step{}, err
		}
		b.replays = append(b.replays, rs)
		shape, src = rs.Replay, rs
	}
	prof, err := f.profile(b.cfg, shape, c, rate)
	if err != nil {
		return tpsbench.Step{}, err
	}
	if ph.requests > 0 {
		prof.Requests, prof.Warmup = ph.requests, 0
	}
	src = b.cfg.withMedia(src, f, ph.image)
	switch {
	case b.cfg.trace != nil && f.api == client.APIRerank:
		src = workload.WithQuery{Source: src} // the records counted documents: a query goes first
	case b.cfg.trace != nil: // each replayed request keeps its own inputs
	case f.api == client.APIRerank: // a query, then the documents
		src = workload.Batched{Source: src, Size: f.batchSize + 1}
	case f.batchSize > 1:
		src = workload.Batched{Source: src, Size: f.batchSize}
	}
	if b.shardN > 0 && b.cfg.trace == nil {
		if prof, err = prof.Shard(b.shardI, b.shardN); err != nil {
			return tpsbench.Step{}, usageError{err}
		}
	}
	var temp *float64
	if f.temp >= 0 {
		temp = &f.temp
	}
	cc := client.HTTPConfig{
		URL: t.url, API: t.api, Stream: !f.noStream, APIKey: b.key, Headers: b.cfg.headers,
		Timeout: f.timeout, IgnoreEOS: b.cfg.ignoreEOS, Temperature: temp, Sampling: b.cfg.sampling, Extra: b.cfg.extra,
		Concurrency: max(prof.Limit(), 1), Clock: b.clock, Tokenizer: b.counter, TLS: b.cfg.tls,
	}
	if b.tokens != nil {
		cc.OnToken = b.tokens.token
	}
	cl, err := client.NewHTTP(cc)
	if err != nil {
		return tpsbench.Step{}, usageError{err}
	}
	b.clients = append(b.clients, cl)
	if b.sent == nil {
		b.sent = cl.Sent()
	}
	var stepClient client.Client = cl
	if len(f.replicas) > 0 {
		if stepClient, err = b.balanced(cc, cl); err != nil {
			return tpsbench.Step{}, err
		}
	}
	return tpsbench.Step{Label: b.label(t, ph, prof.Shape), Model: t.model, Client: stepClient, Profile: prof, Workload: src}, nil
}

// balanced spreads a step's requests over the --url's client first and
// the --replica servers, each a client of cc's settings.
func (b *stepBuilder) balanced(cc client.HTTPConfig, first *client.HTTP) (client.Client, error) {
	clients := []client.Client{first}
	for _, u := range b.f.replicas {
		cc.URL = u
		cl, err := client.NewHTTP(cc)
		if err != nil {
			return nil, usageError{fmt.Errorf("--replica: %w", err)}
		}
		b.clients = append(b.clients, cl)
		clients = append(clients, cl)
	}
	bal, err := client.NewBalanced(clients, b.f.balance)
	if err != nil {
		return nil, usageError{fmt.Errorf("--balance: %w", err)}
	}
	return bal, nil
}

// label names a step in reports: the target, and the phase's level when
// the run has several.
func (b *stepBuilder) label(t target, ph phase, shape load.Shape) string {
	level := ""
	switch {
	case ph.label != "":
		return ph.label
	case len(b.cfg.imageSizes) > 1:
		level = "img=" + b.cfg.imageSizes[ph.image].String()
	case ph.rate > 0, b.cfg.sweeping, b.f.rampStrategy != "" && !b.f.usersRamp():
		level = shape.String() // the load shape names itself: c=8, r=2/s, r=1-10/s linear
	default:
		return t.name
	}
	if b.targets > 1 {
		return t.name + " " + level
	}
	return level
}

// buildAll makes a step for each target and phase, targets outermost.
func (b *stepBuilder) buildAll(tgts []target, phases []phase) ([]tpsbench.Step, error) {
	var steps []tpsbench.Step
	for _, t := range tgts {
		for _, ph := range phases {
			st, err := b.build(t, ph)
			if err != nil {
				return nil, err
			}
			steps = append(steps, st)
		}
	}
	return steps, nil
}

func (b *stepBuilder) close() {
	for _, cl := range b.clients {
		cl.Close()
	}
	for _, r := range b.replays {
		r.close()
	}
}

// newStepBuilder reads what every step shares: the workload, sized in the
// first target's tokens, the text counter and the shard.
func (f *runFlags) newStepBuilder(ctx context.Context, cfg *runConfig, tgts []target, key string, clock *record.Clock, stdout, stderr io.Writer) (*stepBuilder, error) {
	b := &stepBuilder{f: f, cfg: cfg, targets: len(tgts), key: key, clock: clock, stderr: stderr}
	if f.showTokens {
		b.tokens = &tokenPrinter{w: stdout, clock: clock}
	}
	src, err := f.workload(cfg, stderr)
	if err != nil {
		return nil, inputError{err}
	}
	if cfg.trace != nil {
		// a trace's prompts are words, sized in the server's tokens
		src = workload.Synthetic{Seed: f.seed, InputTokens: 1}
	}
	if !f.quiet {
		for _, note := range cfg.notes {
			fmt.Fprintln(stderr, note)
		}
	}
	b.counter = cfg.counter
	b.src = f.calibrate(ctx, src, tgts, key, b.counter, stderr)
	if len(cfg.lora) > 0 {
		b.src = workload.ModelMix{Source: b.src, Models: cfg.lora, Weights: cfg.loraWeights, Assign: f.loraAssign, Seed: f.seed}
	}
	b.shardI, b.shardN = cfg.shardI, cfg.shardN
	return b, nil
}
