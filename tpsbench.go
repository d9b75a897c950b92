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
	"runtime"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/proccpu"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/servermetrics"
	"github.com/tpsbench/tpsbench/workload"
)

// Version is tpsbench's version, reported in outputs.
var Version = "0.1.0-dev"

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
	// Clock stamps the records of clients that have none of their own
	// (made when nil); a client that stamps with its own clock
	// (client.HTTP's Clock) has its records scheduled on it too, so a
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
	if len(plan.Steps) == 0 {
		return nil, fmt.Errorf("the plan has no steps")
	}
	for i, s := range plan.Steps {
		if err := s.Profile.Validate(); err != nil {
			return nil, fmt.Errorf("step %d (%s): %w", i, s.Label, err)
		}
		if s.Client == nil || s.Workload == nil {
			return nil, fmt.Errorf("step %d (%s): needs a client and a workload", i, s.Label)
		}
	}
	clock := plan.Clock
	if clock == nil {
		clock = record.NewClock()
	}
	res := &Result{RunID: newRunID()}
	agg := metrics.NewSteps(plan.Targets).WithConvention(plan.Convention)
	var writeErr error
	views := map[int]servermetrics.View{}
	loads := map[int]*metrics.ClientLoad{}
	for i := range plan.Steps {
		if ctx.Err() != nil {
			break
		}
		step := &plan.Steps[i]
		if plan.Observer != nil {
			plan.Observer.StepBegan(plan.FirstStep+i, step)
		}
		// A record's stamps are offsets on one clock: the client's, which
		// stamps the send and every chunk. A client made without the
		// plan's clock has its own; scheduling on another clock gave a
		// client lag of the two clocks' difference (301 ms, not 1 ms).
		stamps := clock
		if c, ok := step.Client.(interface{ Clock() *record.Clock }); ok && c.Clock() != nil {
			stamps = c.Clock()
		}
		// The server's view starts with the first measured request, so
		// that its counts leave out the warm-up, as the client's do.
		var stopWatch func() servermetrics.View
		var watchOnce sync.Once
		startWatch := func() {
			if plan.ServerMetrics != nil {
				watchOnce.Do(func() { stopWatch = plan.ServerMetrics.Watch(ctx, time.Second) })
			}
		}
		if step.Profile.Warmup == 0 {
			startWatch()
		}
		do := func(ctx context.Context, job load.Job) *record.Record {
			if !job.Warmup {
				startWatch()
			}
			if plan.Abort != nil {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				stop := context.AfterFunc(plan.Abort, cancel)
				defer func() { stop(); cancel() }()
			}
			item := step.Workload.Item(job.Seq, job.Warmup)
			rec := &record.Record{
				V: record.SchemaVersion, Run: res.RunID, Step: step.Label, StepIndex: plan.FirstStep + i,
				Seq: job.Seq, Warmup: job.Warmup,
				Concurrency: step.Profile.Concurrency, Rate: step.Profile.Rate,
				T0: stamps.T0(), Scheduled: stamps.Since(job.Scheduled), Trace: item.Trace,
			}
			if item.MaxTokens > 0 {
				// room for the chunks a budget allows, as far as a typical
				// answer goes: a budget is the request's claim, not what
				// comes (--max-tokens 2^30 asked for a 25.8 GB block)
				rec.Chunks = make([]record.Chunk, 0, min(item.MaxTokens, chunksReserved))
			}
			req := &client.Request{Model: step.Model, Prompt: item.Prompt, Messages: item.Messages, MaxTokens: item.MaxTokens}
			if plan.Observer != nil {
				plan.Observer.Sent(rec)
				req.OnChunk = plan.Observer.Chunk
			}
			step.Client.Do(ctx, req, rec)
			return rec
		}
		cpu0, cpuKnown := proccpu.Used()
		wall0 := time.Now()
		for rec := range load.Run(ctx, step.Profile, do) {
			if plan.Records != nil && writeErr == nil {
				if err := plan.Records.Write(rec); err == nil {
					writeErr = plan.Records.Flush()
				} else {
					writeErr = err
				}
			}
			agg.Add(rec)
			if plan.Observer != nil {
				plan.Observer.Done(rec)
			}
		}
		watchOnce.Do(func() {}) // no measured request started one: none runs
		if stopWatch != nil {
			views[i] = stopWatch()
		}
		if cpu1, ok := proccpu.Used(); ok && cpuKnown && !plan.ServerInProcess {
			loads[i] = metrics.NewClientLoad((cpu1 - cpu0).Seconds(), time.Since(wall0).Seconds(), runtime.GOMAXPROCS(0))
		}
	}
	res.Steps = agg.Summaries()
	for j := range res.Steps {
		// summaries come in step order, one per step that ran
		if v, ok := views[j]; ok {
			res.Steps[j].Server = &v
		}
		res.Steps[j].Client = loads[j]
	}
	res.Interrupted = ctx.Err() != nil
	if writeErr != nil {
		return res, fmt.Errorf("writing records: %w", writeErr)
	}
	return res, nil
}

// chunksReserved bounds the chunks a record makes room for before its
// request is sent; longer answers grow the slice as they stream.
const chunksReserved = 4096

func newRunID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
