package main

import (
	"context"
	"fmt"
	"os"
	"strings"
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
	dims := cfg.search
	probe := func(values []float64) (tpsbench.Step, error) {
		ph := phase{concurrency: cfg.levels[0]} // with a rate alone, --concurrency caps the requests in flight, if given
		var said []string
		for i, d := range dims {
			said = append(said, fmt.Sprintf("%s %g", d.Name, values[i]))
			if d.Name == tpsbench.DimConcurrency {
				ph.concurrency = int(values[i])
			} else {
				ph.rate = values[i]
			}
		}
		if ph.rate == 0 {
			ph.label = fmt.Sprintf("c=%d", ph.concurrency)
		}
		st, err := buildStep(tgts[0], ph)
		if err != nil {
			return st, err
		}
		if f.requests == 0 && f.duration == 0 {
			// enough for percentiles at each value: three waves of users,
			// or ten seconds of arrivals
			st.Profile.Requests = 3 * ph.concurrency
			if ph.rate > 0 {
				st.Profile.Requests = max(20, int(10*ph.rate))
			}
		}
		if f.warmup < 0 && ph.rate == 0 {
			st.Profile.Warmup = ph.concurrency // each level after its own warm-up
		}
		if !f.quiet {
			fmt.Fprintf(stderr, "probing %s\n", strings.Join(said, ", "))
		}
		return st, nil
	}
	budget := tpsbench.Budget{Runs: f.searchRuns, Time: f.searchTime}
	// with --repeat, each probe is its runs, and its figures across them
	var runs []metrics.Summary
	var repeats []metrics.Repeat
	if f.repeat > 1 {
		sess.SetProbeRuns(tpsbench.ProbeRuns{N: f.repeat, Seen: func(each []metrics.Summary, across metrics.Repeat) {
			runs, repeats = append(runs, each...), append(repeats, across)
		}})
	}
	steps, note, found, best, err := searchOn(ctx, sess, dims, budget, probe)
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
	warnBusyClient(stderr, steps)
	warnStoppedEarly(stderr, steps)
	if f.repeat > 1 {
		steps = runs // every run of every probe, in the order measured
	}
	rep := report.New(tpsbench.Version, steps)
	rep.Note, rep.Repeats = note, repeats
	if found {
		rep.BestConcurrency, rep.BestRate = int(best[tpsbench.DimConcurrency]), best[tpsbench.DimRate]
	}
	rep.Pass = found
	// the values past the answer fail by design: the search's answer, not
	// their error rates, decides the exit code
	if err := f.output.write(stdout, rep); err != nil {
		return err
	}
	if !found {
		return exitCode(exitTargetsFail)
	}
	return nil
}

// searchOn runs the search of one dimension, or the coordinate search of
// several, and gives its probes' steps, its answer in a sentence, whether
// it found one, and the values found by dimension.
func searchOn(ctx context.Context, sess *tpsbench.Session, dims []tpsbench.Dimension, budget tpsbench.Budget,
	probe func(values []float64) (tpsbench.Step, error)) (steps []metrics.Summary, note string, found bool, best map[string]float64, err error) {
	if len(dims) == 1 {
		search, err := sess.Search(ctx, dims[0], budget, func(v float64) (tpsbench.Step, error) { return probe([]float64{v}) })
		if err != nil {
			return nil, "", false, nil, err
		}
		for _, p := range search.Probes {
			steps = append(steps, p.Summary)
		}
		return steps, searchNote(search), search.Found, map[string]float64{dims[0].Name: search.Best.Value}, nil
	}
	search, err := sess.SearchCoordinates(ctx, dims, budget, probe)
	if err != nil {
		return nil, "", false, nil, err
	}
	best = map[string]float64{}
	for i, d := range dims {
		best[d.Name] = search.Values[i]
	}
	for _, p := range search.Probes {
		steps = append(steps, p.Summary)
	}
	return steps, coordinateNote(search), search.Found, best, nil
}

// coordinateNote is a search of several dimensions' answer in a sentence.
func coordinateNote(s *tpsbench.CoordinateResult) string {
	var values []string
	for i, d := range s.Dimensions {
		unit := ""
		if d.Name == tpsbench.DimRate {
			unit = " requests/s"
		}
		values = append(values, fmt.Sprintf("%s %g%s", d.Name, s.Values[i], unit))
	}
	if !s.Found {
		return fmt.Sprintf("No %s met every target together; %s.", strings.Join(values, " and "), s.Why)
	}
	b := s.Best.Summary
	return fmt.Sprintf("Highest values meeting every target: %s (system TPS %.2f, per-request TPS %.2f), each searched in turn; %s.",
		strings.Join(values, " and "), b.SystemTPS, b.RequestTPS.Mean, s.Why)
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
