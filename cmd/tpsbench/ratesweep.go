package main

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
)

// ratePhases are the steps of --sweep-rates: one open-loop rate each,
// capped by --concurrency when it is given. For auto[:N] they are
// GuideLLM's two anchors, a synchronous step (one request at a time) and
// a throughput step (every request at once, or --concurrency), and
// autoRates is the N rates to place between them once they have run.
func (f *runFlags) ratePhases(cmd *cobra.Command, sweeping bool) (phases []phase, autoRates int, err error) {
	if sweeping || cmd.Flags().Changed("rate") || f.factor != "" || f.findMax {
		return nil, 0, usagef("--sweep-rates steps through rates: drop --sweep, --rate, --factor and --find-max")
	}
	if n, ok := strings.CutPrefix(f.sweepRates, "auto"); ok {
		if f.shard != "" {
			// each shard would place its rates by its own anchors
			return nil, 0, usagef("--sweep-rates auto places rates by a whole server's speed: give the shards explicit rates")
		}
		autoRates = 8 // with the two anchors, GuideLLM's ten steps
		if n != "" {
			v, err := strconv.Atoi(strings.TrimPrefix(n, ":"))
			if err != nil || !strings.HasPrefix(n, ":") || v < 1 || v > 100 {
				return nil, 0, usagef("--sweep-rates %q: want auto, or auto:N with N rates from 1 to 100", f.sweepRates)
			}
			autoRates = v
		}
		flood := f.requests
		if cmd.Flags().Changed("concurrency") {
			flood = f.concurrency
		}
		if flood < 1 {
			return nil, 0, usagef("--sweep-rates auto with --duration: give --concurrency for its throughput step")
		}
		return []phase{{label: "synchronous", concurrency: 1}, {label: "throughput", concurrency: flood}}, autoRates, nil
	}
	for _, p := range strings.Split(f.sweepRates, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(r > 0) || math.IsInf(r, 0) {
			return nil, 0, usagef("--sweep-rates %q: want request rates such as 1,2,4,8, or auto", f.sweepRates)
		}
		phases = append(phases, phase{concurrency: f.concurrency, rate: r})
	}
	return phases, 0, nil
}

// runRatesBetween runs the rate steps an automatic sweep places between
// its synchronous and throughput steps (anchors) on the run's session; it
// returns every step, anchors first, and a note of where the rates came
// from.
func (f *runFlags) runRatesBetween(ctx context.Context, cmd *cobra.Command, sess *tpsbench.Session, anchors *tpsbench.Result,
	build func(target, phase) (tpsbench.Step, error), t target, n int) (*tpsbench.Result, string, error) {
	limit := 0 // requests in flight; none unless --concurrency caps them
	if cmd.Flags().Changed("concurrency") {
		limit = f.concurrency
	}
	return sess.SweepBetween(ctx, anchors, n, func(rate float64) (tpsbench.Step, error) {
		return build(t, phase{concurrency: limit, rate: rate})
	})
}
