package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
)

// resolveCommand reads run's settings: a scenario's under the command
// line's flags, --max-concurrency as --concurrency, and every rule of
// resolve; it says how levels are sized when it sized them, and trusts
// the TLS settings given.
func (f *runFlags) resolveCommand(cmd *cobra.Command) (*runConfig, error) {
	if f.scenario != "" {
		if err := applyScenario(cmd.Flags(), f.scenario); err != nil {
			return nil, err
		}
	}
	if err := f.applyMaxConcurrency(cmd.Flags()); err != nil {
		return nil, err
	}
	cfg, err := resolve(f, cmd.Flags().Changed)
	if err != nil {
		return nil, err
	}
	if (cfg.levelSweep || f.factor != "" || targetCount(f) > 1) && cfg.requests == 0 && f.duration == 0 && !f.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "each level or target: %d waves of its concurrency, at least %d requests (--requests or --duration sizes them otherwise)\n", levelWaves, minLevelRequests)
	}
	client.UseTLS(cfg.tls) // detection, model lists, /tokenize and scrapes too
	return cfg, nil
}

// serverTargets are the targets of the servers the flags name, once
// they answer.
func (f *runFlags) serverTargets(ctx context.Context, cfg *runConfig, key string, stderr io.Writer) ([]target, error) {
	if err := f.waitReady(ctx, cfg, key, stderr); err != nil {
		return nil, err
	}
	return f.parseTargets(ctx, stderr, cfg.specs, key, cfg.headers)
}

// wirePlan gives the plan its steps (but find-max's, built as it
// searches), the servers' metrics, the records file and the live views;
// the function returned closes what it opened.
func (f *runFlags) wirePlan(ctx context.Context, plan *tpsbench.Plan, cfg *runConfig, steps *stepBuilder, tgts []target, phases []phase,
	engineURLs []string, key string, autoRates int, stderr io.Writer) (func(), error) {
	var err error
	if !f.findMax {
		if plan.Steps, err = steps.buildAll(tgts, phases); err != nil {
			return nil, err
		}
	}
	if plan.ServerMetrics, err = f.serverMetrics(tgts, engineURLs, key, cfg.headers); err != nil {
		return nil, err
	}
	closeRecords, err := f.openRecords(plan)
	if err != nil {
		return nil, err
	}
	observers := f.liveViews(ctx, stderr, len(plan.Steps)*f.repeat+autoRates)
	if steps.tokens != nil {
		observers = append(observers, steps.tokens)
	}
	if len(observers) > 0 {
		plan.Observer = observers
	}
	return closeRecords, nil
}

// measure runs the plan's steps, --repeat times, then a sweep's rates
// between its anchors when --sweep-rates auto asked for them; a replay
// that went bad is the run's error.
func (f *runFlags) measure(ctx context.Context, cmd *cobra.Command, cfg *runConfig, sess *tpsbench.Session, planned []tpsbench.Step, steps *stepBuilder, first target) (*tpsbench.Result, string, error) {
	var res *tpsbench.Result
	var runErr error
	if f.repeat > 1 {
		res, f.repeats, runErr = sess.Repeat(ctx, planned, f.repeat)
	} else {
		res, runErr = sess.Run(ctx, planned)
	}
	if err := replayErrors(steps.replays, cmd.ErrOrStderr(), f.quiet); runErr == nil {
		runErr = err
	}
	note := ""
	if cfg.autoRates > 0 && runErr == nil && !res.Interrupted && len(res.Steps) == 2 {
		res, note, runErr = runRatesBetween(ctx, cfg, sess, res, steps.build, first)
	}
	return res, note, runErr
}
