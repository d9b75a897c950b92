package tpsbench

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tpsbench/tpsbench/metrics"
)

// A Session runs strategies (plain steps, a search for the highest
// concurrency meeting targets, a rate sweep) on one set of outputs: every
// step of every strategy gets the base plan's clock, records, observer,
// server metrics and targets, and steps are numbered on across them. A
// strategy builds only its steps, so none can miss an output.
type Session struct {
	base Plan
	next int // index of the session's next step
}

// NewSession starts a session on base; base.Steps is ignored, each
// strategy brings its own.
func NewSession(base Plan) *Session {
	base.Steps = nil
	return &Session{base: base, next: base.FirstStep}
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
		st, err := build(c)
		if err != nil {
			return metrics.Summary{}, err
		}
		res, err := s.Run(ctx, []Step{st})
		if err != nil {
			return metrics.Summary{}, err
		}
		if res.Interrupted || len(res.Steps) == 0 {
			return metrics.Summary{}, context.Canceled
		}
		return res.Steps[0], nil
	})
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
