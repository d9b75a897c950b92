package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/report"
)

// runFindMax searches the highest value of the load setting the search
// varies (a concurrency, a request rate) meeting the targets, one
// measured step a probe on the run's session (so every output sees each
// probe), and reports every step and the answer.
func (f *runFlags) runFindMax(ctx context.Context, cmd *cobra.Command, caught func() os.Signal, sess *tpsbench.Session, cfg *runConfig, tgts []target,
	buildStep func(target, phase) (tpsbench.Step, error)) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	dim := cfg.search
	probe := func(v float64) (tpsbench.Step, error) {
		ph := phase{concurrency: int(v), label: fmt.Sprintf("c=%d", int(v))}
		if dim.Name == tpsbench.DimRate {
			ph = phase{concurrency: cfg.levels[0], rate: v} // --concurrency caps the requests in flight, if given
		}
		st, err := buildStep(tgts[0], ph)
		if err != nil {
			return st, err
		}
		if f.requests == 0 && f.duration == 0 {
			// enough for percentiles at each value: three waves of users,
			// or ten seconds of arrivals
			st.Profile.Requests = 3 * int(v)
			if dim.Name == tpsbench.DimRate {
				st.Profile.Requests = max(20, int(10*v))
			}
		}
		if f.warmup < 0 && dim.Name == tpsbench.DimConcurrency {
			st.Profile.Warmup = int(v) // each level after its own warm-up
		}
		if !f.quiet {
			fmt.Fprintf(stderr, "probing %s %g\n", dim.Name, v)
		}
		return st, nil
	}
	search, err := sess.Search(ctx, dim, tpsbench.Budget{Runs: f.searchRuns, Time: f.searchTime}, probe)
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
	var steps []metrics.Summary
	for _, p := range search.Probes {
		steps = append(steps, p.Summary)
	}
	warnBusyClient(stderr, steps)
	warnStoppedEarly(stderr, steps)
	rep := report.New(tpsbench.Version, steps)
	rep.Note = searchNote(search)
	if search.Found && dim.Name == tpsbench.DimConcurrency {
		rep.BestConcurrency = int(search.Best.Value)
	}
	if search.Found && dim.Name == tpsbench.DimRate {
		rep.BestRate = search.Best.Value
	}
	rep.Pass = search.Found
	// the values past the answer fail by design: the search's answer, not
	// their error rates, decides the exit code
	if err := f.output.write(stdout, rep); err != nil {
		return err
	}
	if !search.Found {
		return exitCode(exitTargetsFail)
	}
	return nil
}

// searchNote is a search's answer in a sentence.
func searchNote(s *tpsbench.SearchResult) string {
	name, unit := s.Dimension.Name, ""
	if name == tpsbench.DimRate {
		unit = " requests/s"
	}
	if !s.Found {
		return fmt.Sprintf("No %s met every target; %s.", name, s.Why)
	}
	b := s.Best.Summary
	if s.Highest != s.Best.Value {
		// saturated: a higher value also passed, with less throughput
		return fmt.Sprintf("Best %s meeting every target: %g%s (the highest system TPS of the passing values: %.2f, per-request TPS %.2f); %s %g also met them, with less throughput; %s.",
			name, s.Best.Value, unit, b.SystemTPS, b.RequestTPS.Mean, name, s.Highest, s.Why)
	}
	return fmt.Sprintf("Highest %s meeting every target: %g%s (system TPS %.2f, per-request TPS %.2f); %s.", name, s.Best.Value, unit, b.SystemTPS, b.RequestTPS.Mean, s.Why)
}
