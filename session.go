package tpsbench

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/metrics"
)

// A Session runs strategies (plain steps, a search for the highest
// concurrency meeting targets, a rate sweep) on one set of outputs: every
// step of every strategy gets the base plan's clock, records, observer,
// server metrics and targets, and steps are numbered on across them. A
// strategy builds only its steps, so none can miss an output.
//
// Start, Finish and Close drive the base plan's observers' lifecycles
// (Starter, Flusher, Stopper); a session that is never started runs as
// well, its observers then started and stopped by their owner.
type Session struct {
	base Plan
	next int // index of the session's next step

	started          []Observer // those Start started, to stop
	flushed, stopped bool
	probeRuns        ProbeRuns // how a search measures each probe
}

// ProbeRuns is how a search on a session measures each probe: N runs of
// its step (Repeat), a target held where it held in every run, the
// probe's figures its first run's; Seen, when set, gets each probe's runs
// and their figures across them (the intervals a report gives).
type ProbeRuns struct {
	N    int
	Seen func(runs []metrics.Summary, across metrics.Repeat)
}

// SetProbeRuns makes the session's searches measure each probe as p says
// (N below 2: once).
func (s *Session) SetProbeRuns(p ProbeRuns) { s.probeRuns = p }

// NewSession starts a session on base; base.Steps is ignored, each
// strategy brings its own.
func NewSession(base Plan) *Session {
	base.Steps = nil
	return &Session{base: base, next: base.FirstStep}
}

// Start starts every observer of the base plan that has a Start, in
// order; when one fails, those started are stopped and its error returned.
func (s *Session) Start() error {
	var err error
	each(s.base.Observer, func(o Observer) {
		if err != nil {
			return
		}
		if st, ok := o.(Starter); ok {
			if err = st.Start(); err != nil {
				return
			}
		}
		s.started = append(s.started, o)
	})
	if err != nil {
		s.Close()
	}
	return err
}

// Finish flushes every observer Start started that has a Flush, once:
// the measuring is over.
func (s *Session) Finish() {
	if s.flushed {
		return
	}
	s.flushed = true
	for _, o := range s.started {
		if f, ok := o.(Flusher); ok {
			f.Flush()
		}
	}
}

// Close finishes the session, if Finish has not, and stops the observers
// Start started, the last first.
func (s *Session) Close() {
	s.Finish()
	if s.stopped {
		return
	}
	s.stopped = true
	for i := len(s.started) - 1; i >= 0; i-- {
		if st, ok := s.started[i].(Stopper); ok {
			st.Stop()
		}
	}
}

// Run measures steps in order, as Run does with the base plan.
func (s *Session) Run(ctx context.Context, steps []Step) (*Result, error) {
	plan := s.base
	plan.Steps, plan.FirstStep = steps, s.next
	s.next += len(steps)
	return Run(ctx, plan)
}

// FindMax searches the highest concurrency from start to limit meeting
// the base plan's targets (see the function FindMax), measuring each
// level as one step that build makes for it.
func (s *Session) FindMax(ctx context.Context, start, limit int, build func(concurrency int) (Step, error)) (*MaxSearch, error) {
	return FindMax(ctx, start, limit, func(ctx context.Context, c int) (metrics.Summary, error) {
		return s.probe(ctx, func() (Step, error) { return build(c) })
	})
}

// Search runs an adaptive search (the function Search) over dim within
// budget, measuring each value as one step that build makes for it.
func (s *Session) Search(ctx context.Context, dim Dimension, budget Budget, build func(value float64) (Step, error)) (*SearchResult, error) {
	return Search(ctx, dim, budget, func(ctx context.Context, v float64) (metrics.Summary, error) {
		return s.probe(ctx, func() (Step, error) { return build(v) })
	})
}

// SearchCoordinates runs a search of several dimensions (the function
// SearchCoordinates), measuring each tuple of values as one step that
// build makes for it.
func (s *Session) SearchCoordinates(ctx context.Context, dims []Dimension, budget Budget, build func(values []float64) (Step, error)) (*CoordinateResult, error) {
	return SearchCoordinates(ctx, dims, budget, func(ctx context.Context, v []float64) (metrics.Summary, error) {
		return s.probe(ctx, func() (Step, error) { return build(v) })
	})
}

// probe measures the one step build makes, as the session's ProbeRuns
// say.
func (s *Session) probe(ctx context.Context, build func() (Step, error)) (metrics.Summary, error) {
	st, err := build()
	if err != nil {
		return metrics.Summary{}, err
	}
	if n := s.probeRuns.N; n > 1 {
		res, across, err := s.Repeat(ctx, []Step{st}, n)
		if err != nil {
			return metrics.Summary{}, err
		}
		if res.Interrupted || len(res.Steps) < n || len(across) == 0 {
			return metrics.Summary{}, context.Canceled
		}
		first := res.Steps[0]
		// a target holds where it held in every run, not the first alone
		first.Targets = append([]metrics.Verdict(nil), first.Targets...)
		for _, run := range res.Steps[1:] {
			for i := range first.Targets {
				if i < len(run.Targets) && !run.Targets[i].Pass {
					first.Targets[i].Pass = false
				}
			}
		}
		if s.probeRuns.Seen != nil {
			s.probeRuns.Seen(res.Steps, across[0])
		}
		return first, nil
	}
	res, err := s.Run(ctx, []Step{st})
	if err != nil {
		return metrics.Summary{}, err
	}
	if res.Interrupted || len(res.Steps) == 0 {
		return metrics.Summary{}, context.Canceled
	}
	return res.Steps[0], nil
}

// SweepBetween completes GuideLLM's sweep after its two anchor steps (one
// request at a time, then flooded): n open-loop rates evenly spaced
// between the anchors' request throughputs (RatesBetween), each rounded
// to three significant digits so that a label shows it exactly, each a
// step that build makes. It returns the anchors' steps then the rates',
// and a note of where the rates came from. With no room between the
// anchors it measures nothing and says why.
func (s *Session) SweepBetween(ctx context.Context, anchors *Result, n int, build func(rate float64) (Step, error)) (*Result, string, error) {
	if len(anchors.Steps) != 2 {
		return anchors, "", fmt.Errorf("a sweep between rates needs two anchor steps, not %d", len(anchors.Steps))
	}
	low, high := anchors.Steps[0].RequestThroughput, anchors.Steps[1].RequestThroughput
	rates := RatesBetween(low, high, n)
	if rates == nil {
		return anchors, fmt.Sprintf("The throughput step completed no more requests a second than the synchronous one (%.3g against %.3g): no rates between them to measure.", high, low), nil
	}
	steps := make([]Step, 0, len(rates))
	for _, r := range rates {
		r, _ = strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
		st, err := build(r)
		if err != nil {
			return anchors, "", err
		}
		steps = append(steps, st)
	}
	note := fmt.Sprintf("Rates between the synchronous step's %.3g and the throughput step's %.3g requests/s, evenly spaced as in GuideLLM's sweep.", low, high)
	res, err := s.Run(ctx, steps)
	if res == nil {
		return anchors, note, err
	}
	res.Steps = append(anchors.Steps, res.Steps...)
	return res, note, err
}

// Repeat measures steps n times in turn, each run's steps labelled
// "LABEL (run K)", and gives every step's summaries of all runs together
// with each step's figures across the runs (mean and 95% confidence
// interval), as AIPerf's --num-profile-runs does: one run's noise is not
// a difference. An interruption ends the repeats; what ran is reported.
func (s *Session) Repeat(ctx context.Context, steps []Step, n int) (*Result, []metrics.Repeat, error) {
	all := &Result{}
	byLabel := map[string][]metrics.Summary{}
	var order []string
	for k := 1; k <= n; k++ {
		suffix := fmt.Sprintf(" (run %d)", k)
		run := make([]Step, len(steps))
		for i, st := range steps {
			run[i] = st
			run[i].Label = st.Label + suffix
		}
		res, err := s.Run(ctx, run)
		if res != nil {
			all.RunID = res.RunID
			all.Steps = append(all.Steps, res.Steps...)
			all.Interrupted = all.Interrupted || res.Interrupted
			for _, sum := range res.Steps {
				base := strings.TrimSuffix(sum.Label, suffix)
				if _, seen := byLabel[base]; !seen {
					order = append(order, base)
				}
				byLabel[base] = append(byLabel[base], sum)
			}
		}
		if err != nil || all.Interrupted {
			return all, repeats(order, byLabel), err
		}
	}
	return all, repeats(order, byLabel), nil
}

func repeats(order []string, byLabel map[string][]metrics.Summary) []metrics.Repeat {
	out := make([]metrics.Repeat, 0, len(order))
	for _, label := range order {
		out = append(out, metrics.AcrossRuns(label, byLabel[label]))
	}
	return out
}
