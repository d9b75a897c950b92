package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/report"
)

// runFindMax searches the highest concurrency meeting the targets, one
// measured step a probe on the run's session (so every output sees each
// probe), and reports every step and the answer.
func (f *runFlags) runFindMax(ctx context.Context, cmd *cobra.Command, caught func() os.Signal, sess *tpsbench.Session, tgts []target,
	buildStep func(target, phase) (tpsbench.Step, error)) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	probe := func(c int) (tpsbench.Step, error) {
		st, err := buildStep(tgts[0], phase{concurrency: c, label: fmt.Sprintf("c=%d", c)})
		if err != nil {
			return st, err
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
		return st, nil
	}
	search, err := sess.FindMax(ctx, 1, f.maxConc, probe)
	sess.Finish() // the progress line ends before the report prints
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
	warnBusyClient(stderr, search.Steps)
	warnStoppedEarly(stderr, search.Steps)
	rep := report.New(tpsbench.Version, search.Steps)
	if search.Found {
		rep.BestConcurrency = search.Best.Concurrency
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
	// the levels past the limit fail by design: the search's answer, not
	// their error rates, decides the exit code
	if err := f.output.write(stdout, rep); err != nil {
		return err
	}
	if !search.Found {
		return exitCode(exitTargetsFail)
	}
	return nil
}
