// Package tpsbench measures how fast LLM servers generate text. It wires the
// pipeline workload -> load -> client -> records -> metrics: Run executes a
// Plan of steps and returns each step's figures, streaming every record to
// the sinks given. The tpsbench command is a thin layer over this package.
package tpsbench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/energy"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/servermetrics"
	"github.com/tpsbench/tpsbench/workload"
)

// Step is one measured configuration: a target, a load and a workload.
type Step struct {
	Label    string
	Model    string
	Client   client.Client
	Profile  load.Profile
	Workload workload.Source
}

// Plan is a run: steps executed one after another.
type Plan struct {
	Steps   []Step
	Targets metrics.Targets
	// Convention reports TPOT and ITL under another tool's definitions
	// (metrics.Conventions); empty is tpsbench's own.
	Convention string
	// Energy, when set, is read around each step: the step's joules and
	// joules per output token (metrics.Summary.Energy).
	Energy energy.Meter
	// Percentiles are reported besides the usual ones (vLLM's
	// --metric-percentiles; metrics.Dist.Percentiles).
	Percentiles []float64
	// SliceDuration, when above 0, also reports each step slice by slice
	// (metrics.Summary.Slices).
	SliceDuration time.Duration
	// Clock stamps the records of clients that have none of their own
	// (made when nil); a client that stamps with its own clock
	// (Client.Clock) has its records scheduled on it too, so a
	// zero Plan measures client lag as truly as the CLI does.
	Clock *record.Clock
	// Records, when set, receives every record (warm-up included) as its
	// request ends, flushed at once so that a killed run loses only what
	// was in flight.
	Records *record.Writer
	// Observer, when set, watches the run: steps beginning, requests
	// sent, chunks arriving, records done (Observers fans out to several).
	Observer Observer
	// FirstStep numbers the steps' records from this index, so that plans
	// run one after another into one records file keep distinct steps.
	FirstStep int
	// ServerMetrics, when set, is scraped before, during (every second) and
	// after each step; the server's view goes into the step's summary.
	ServerMetrics *servermetrics.Scraper
	// Abort, when set, cancels the requests in flight the moment it is
	// done, without waiting out their grace (a second Ctrl-C); what they
	// measured is kept as canceled records.
	Abort context.Context
	// MaxErrors, when above 0, stops a step early once that many of its
	// measured requests have failed (GuideLLM's max_errors): no request
	// starts after, those in flight get the step's grace. The run goes on
	// to its next step.
	MaxErrors int
	// MaxErrorRate, when below 1, stops a step early once more than this
	// share of its last ErrorWindow finished requests failed (GuideLLM's
	// max_error_rate); 0 or 1 and above never stops.
	MaxErrorRate float64
	// ErrorWindow is how many of the last finished requests MaxErrorRate
	// looks at; 0 takes 30, GuideLLM's window.
	ErrorWindow int
	// ServerInProcess says the server runs in this process (the embedded
	// engine): the process's CPU is then not the client's, and no client
	// load is reported.
	ServerInProcess bool
}

// Result is what a run measured.
type Result struct {
	RunID string
	Steps []metrics.Summary
	// Interrupted is set when ctx ended the run early; Steps then hold
	// what finished.
	Interrupted bool
}

// Pass reports whether every target was met.
func (r *Result) Pass() bool { return metrics.Pass(r.Steps) }

// Run executes the plan. Cancelling ctx stops scheduling; requests in
// flight get each step's grace period, and what finished is reported. The
// error is about the plan or the records file; request failures are
// figures, not errors.
func Run(ctx context.Context, plan Plan) (*Result, error) {
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	if err := checkOpenFiles(plan.Steps, plan.ServerInProcess); err != nil {
		return nil, err
	}
	clock := plan.Clock
	if clock == nil {
		clock = record.NewClock()
	}
	res := &Result{RunID: newRunID()}
	if plan.Records != nil {
		if err := plan.Records.WriteHeader(plan.header(res.RunID)); err != nil {
			return nil, err
		}
	}
	r := &runner{
		plan: &plan, runID: res.RunID, clock: clock,
		agg:   metrics.NewSteps(plan.Targets).WithConvention(plan.Convention).WithPercentiles(plan.Percentiles).WithSlices(plan.SliceDuration),
		views: map[int]servermetrics.View{}, loads: map[int]*metrics.ClientLoad{}, stopped: map[int]*metrics.EarlyStop{},
		energy: map[int]energy.Use{}, opened: map[int]*metrics.OpenedConnections{},
	}
	for i := range plan.Steps {
		if ctx.Err() != nil {
			break
		}
		r.step(ctx, i)
	}
	res.Steps = r.agg.Summaries()
	for j := range res.Steps {
		// summaries come in step order, one per step that ran
		if v, ok := r.views[j]; ok {
			res.Steps[j].Server = &v
		}
		res.Steps[j].Client = r.loads[j]
		res.Steps[j].Opened = r.opened[j]
		if u, ok := r.energy[j]; ok {
			res.Steps[j].Energy = metrics.NewEnergy(u.Source, u.Joules, res.Steps[j].OutputTokens, u.Unavailable)
		}
		res.Steps[j].Stopped = r.stopped[j]
	}
	res.Interrupted = ctx.Err() != nil
	if r.writeErr != nil {
		return res, fmt.Errorf("writing records: %w", r.writeErr)
	}
	return res, nil
}

func newRunID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
