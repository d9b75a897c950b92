package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/report"
)

// runFindMax searches the highest concurrency meeting the targets, one
// measured step a probe, and reports every step and the answer.
func (f *runFlags) runFindMax(ctx, abort context.Context, cmd *cobra.Command, caught func() os.Signal, tgts []target, targets metrics.Targets,
	clock *record.Clock, buildStep func(target, phase) (tpsbench.Step, error), engineInProcess bool) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if len(targets.List) == 0 {
		return usagef("--find-max needs targets: --slo (e.g. request_tps=30,ttft=1s) or --target-use")
	}
	if len(tgts) != 1 || f.sweep != "" || f.factor != "" || f.rate > 0 {
		return usagef("--find-max searches one target's concurrency: drop --sweep, --factor, --rate and extra models")
	}
	if f.maxConc < 1 {
		return usagef("--max-concurrency must be at least 1")
	}
	var records *record.Writer
	if f.records != "" {
		file, err := os.Create(f.records)
		if err != nil {
			return fmt.Errorf("creating records file: %w", err)
		}
		defer file.Close()
		records = record.NewWriter(file)
	}
	probes := 0
	probe := func(ctx context.Context, c int) (metrics.Summary, error) {
		st, err := buildStep(tgts[0], phase{concurrency: c, label: fmt.Sprintf("c=%d", c)})
		if err != nil {
			return metrics.Summary{}, err
		}
		if f.requests == 0 && f.duration == 0 {
			st.Profile.Requests = 3 * c // enough for percentiles at each level
		}
		if f.warmup < 0 {
			st.Profile.Warmup = c // each level after its own warm-up
		}
		if !f.quiet {
			fmt.Fprintf(stderr, "probing concurrency %d\n", c)
		}
		res, err := tpsbench.Run(ctx, tpsbench.Plan{Steps: []tpsbench.Step{st}, Targets: targets, Clock: clock,
			Convention: f.output.convention, Records: records, FirstStep: probes, ServerInProcess: engineInProcess, Abort: abort})
		probes++
		if err != nil {
			return metrics.Summary{}, err
		}
		if res.Interrupted || len(res.Steps) == 0 {
			return metrics.Summary{}, context.Canceled
		}
		warnBusyClient(stderr, res.Steps)
		return res.Steps[0], nil
	}
	search, err := tpsbench.FindMax(ctx, 1, f.maxConc, probe)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "tpsbench: interrupted during the search")
			if caught() == syscall.SIGTERM {
				return exitCode(exitTerminated)
			}
			return exitCode(exitInterrupted)
		}
		return err
	}
	rep := report.New(tpsbench.Version, search.Steps)
	if search.Found {
		rep.Note = fmt.Sprintf("Highest concurrency meeting every target: %d (system TPS %.2f, per-request TPS %.2f); %s.",
			search.Best.Concurrency, search.Best.SystemTPS, search.Best.RequestTPS.Mean, search.Why)
		if search.Highest != search.Best.Concurrency {
			// saturated: a higher level also passed, with less throughput
			rep.Note = fmt.Sprintf("Best concurrency meeting every target: %d (the highest system TPS of the passing levels: %.2f, per-request TPS %.2f); concurrency %d also met them, with less throughput; %s.",
				search.Best.Concurrency, search.Best.SystemTPS, search.Best.RequestTPS.Mean, search.Highest, search.Why)
		}
	} else {
		rep.Note = fmt.Sprintf("No concurrency met every target; %s.", search.Why)
	}
	rep.Pass = search.Found
	if err := f.output.render(stdout, rep); err != nil {
		return err
	}
	return nil
}
