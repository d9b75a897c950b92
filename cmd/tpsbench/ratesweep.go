package main

import (
	"context"

	"github.com/tpsbench/tpsbench"
)

// ratePhases are the steps of --sweep-rates: one open-loop rate each,
// capped by --concurrency when it is given. For auto[:N] they are
// GuideLLM's two anchors, a synchronous step (one request at a time) and
// a throughput step (every request at once, or --concurrency); the rates
// between them are placed once they have run (cfg.autoRates).
func (f *runFlags) ratePhases(cfg *runConfig) []phase {
	if cfg.autoRates > 0 {
		return []phase{{label: "synchronous", concurrency: 1}, {label: "throughput", concurrency: cfg.flood}}
	}
	var phases []phase
	for _, r := range cfg.rates {
		phases = append(phases, phase{concurrency: cfg.levels[0], rate: r})
	}
	return phases
}

// runRatesBetween runs the rate steps an automatic sweep places between
// its synchronous and throughput steps (anchors) on the run's session; it
// returns every step, anchors first, and a note of where the rates came
// from.
func runRatesBetween(ctx context.Context, cfg *runConfig, sess *tpsbench.Session, anchors *tpsbench.Result,
	build func(target, phase) (tpsbench.Step, error), t target) (*tpsbench.Result, string, error) {
	limit := cfg.levels[0] // requests in flight; none (0) unless --concurrency caps them
	return sess.SweepBetween(ctx, anchors, cfg.autoRates, func(rate float64) (tpsbench.Step, error) {
		return build(t, phase{concurrency: limit, rate: rate})
	})
}
