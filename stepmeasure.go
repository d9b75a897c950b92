package tpsbench

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/energy"
	"github.com/tpsbench/tpsbench/internal/proccpu"
	"github.com/tpsbench/tpsbench/internal/procmem"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/servermetrics"
)

// runner measures a plan's steps, one after another, into one aggregate.
type runner struct {
	plan     *Plan
	runID    string
	clock    *record.Clock
	agg      *metrics.Steps
	writeErr error                              // the first the records file gave
	views    map[int]servermetrics.View         // the server's view of step i
	loads    map[int]*metrics.ClientLoad        // the client's CPU and memory in step i
	stopped  map[int]*metrics.EarlyStop         // why step i stopped early
	energy   map[int]energy.Use                 // what step i spent, when a meter is read
	opened   map[int]*metrics.OpenedConnections // connections opened before step i
}

// step measures plan step i: it sends the step's load, records and adds up
// each request, and keeps the server's view and the client's CPU load of
// the step.
func (r *runner) step(ctx context.Context, i int) {
	step := &r.plan.Steps[i]
	if r.plan.Observer != nil {
		r.plan.Observer.StepBegan(r.plan.FirstStep+i, step)
	}
	// the memory the step's streams take counts from before their
	// connections are opened (which rehearses their first moments')
	memSpan := procmem.ResetPeak()
	// before the server's view and the client's CPU are taken: the
	// dials belong to no figure of the step
	if o, ok := step.Client.(connectionOpener); ok {
		if n, took := o.OpenConnections(ctx, step.Profile.StartsAtOnce()); n > 0 {
			r.opened[i] = &metrics.OpenedConnections{Count: n, MS: float64(took) / 1e6}
		}
		defer o.CloseUnused()
	}
	window := &scrapeWindow{ctx: ctx, scraper: r.plan.ServerMetrics, meter: r.plan.Energy}
	if step.Profile.Warmup == 0 {
		window.start()
	}
	cpu := startCPU()
	stepCtx, stop := context.WithCancel(ctx)
	defer stop()
	errs := newErrorLimit(r.plan.MaxErrors, r.plan.MaxErrorRate, r.plan.ErrorWindow, stop)
	for rec := range load.Run(stepCtx, step.Profile, r.request(i, window, errs, &sessionHistory{})) {
		r.keep(rec)
	}
	if why := errs.reached(); why != nil && ctx.Err() == nil {
		r.stopped[i] = why
	}
	if v, ok := window.stop(); ok {
		r.views[i] = v
	}
	if l := cpu.load(); l != nil && !r.plan.ServerInProcess {
		if peak, ok := procmem.Peak(); ok && memSpan {
			l.PeakBytes, l.Streams = peak, step.Profile.Limit()
		}
		r.loads[i] = l
	}
	if u, ok := window.energyUse(); ok {
		r.energy[i] = u
	}
}

// request is how step i sends one job and records it. A record's stamps
// are offsets on one clock, the client's, which stamps the send and every
// chunk: the schedule is kept on it too (scheduling on another clock gave
// a client lag of the two clocks' difference, 301 ms, not 1 ms).
func (r *runner) request(i int, window *scrapeWindow, errs *errorLimit, sessions *sessionHistory) func(context.Context, load.Job) *record.Record {
	plan, step := r.plan, &r.plan.Steps[i]
	stamps := step.Client.Clock()
	if stamps == nil {
		stamps = r.clock
	}
	prefill := newPrefillSlots(step.Profile.MaxPrefill)
	return func(ctx context.Context, job load.Job) *record.Record {
		if !job.Warmup {
			window.start()
		}
		if plan.Abort != nil {
			var cancel context.CancelCauseFunc
			ctx, cancel = context.WithCancelCause(ctx)
			stop := context.AfterFunc(plan.Abort, func() { cancel(context.Cause(plan.Abort)) })
			defer func() { stop(); cancel(nil) }()
		}
		item := step.Workload.Item(job.Seq, job.Warmup)
		rec := &record.Record{
			V: record.SchemaVersion, Run: r.runID, Step: step.Label, StepIndex: plan.FirstStep + i,
			Seq: job.Seq, Warmup: job.Warmup, Model: step.Model, Session: job.Session, Turn: job.Turn, Phase: job.Phase,
			Concurrency: step.Profile.Limit(), Rate: job.Rate,
			T0: stamps.T0(), Scheduled: stamps.Since(job.Scheduled), Trace: item.Trace,
		}
		if item.MaxTokens > 0 {
			// room for the chunks a budget allows, as far as a typical
			// answer goes: a budget is the request's claim, not what
			// comes (--max-tokens 2^30 asked for a 25.8 GB block)
			rec.Chunks = make([]record.Chunk, 0, min(item.MaxTokens, chunksReserved))
		}
		req := &client.Request{Model: step.Model, Prompt: item.Prompt, Messages: item.Messages, MaxTokens: item.MaxTokens, Media: item.Media, Inputs: item.Inputs}
		if item.Model != "" {
			req.Model, rec.Model = item.Model, item.Model
		}
		if job.Turn > 0 {
			sessions.prepare(job, item, req)
		}
		if item.Grade != nil && req.Answer == nil {
			req.Answer = &strings.Builder{}
		}
		if job.Hold != nil {
			req.Hold = func(write func()) bool {
				due, ok := job.Hold(ctx, write)
				if ok && !due.IsZero() {
					rec.Scheduled = stamps.Since(due)
				}
				return ok
			}
		}
		if plan.Observer != nil {
			plan.Observer.Sent(rec)
			req.OnChunk = plan.Observer.Chunk
		}
		release, ok := prefill.take(ctx, req)
		if !ok {
			rec.Sent = stamps.Now()
			rec.Done = rec.Sent
			rec.Fail(record.KindCanceled, "stopped while waiting for a slot among the requests in prefill ("+context.Cause(ctx).Error()+")")
			return rec
		}
		doPlanned(ctx, job, step.Client, req, rec)
		release()
		if item.Grade != nil && rec.OK() {
			answer := req.Answer.String()
			rec.Graded(item.Grade(answer), answer)
		}
		if job.Turn > 0 {
			sessions.answered(job, req)
		}
		if !job.Warmup && !rec.CancelledByPlan() {
			errs.finished(rec.OK())
		}
		return rec
	}
}

// connectionOpener is a client that can open its connections before a
// step (client.HTTP): a closed loop's first requests, all due at once,
// then wait for no dial, and the dials are in no request's figures.
type connectionOpener interface {
	OpenConnections(ctx context.Context, n int) (opened int, took time.Duration)
	CloseUnused()
}

// chunksReserved bounds the chunks a record makes room for before its
// request is sent; longer answers grow the slice as they stream. Room for
// 4,096 was 96 KiB a stream under a budget of that many tokens: 400 MB at
// 4,096 streams before a token came, most of it never used.
const chunksReserved = 256

// keep writes a finished record to the records file (flushed at once),
// adds it up and shows it to the observer.
func (r *runner) keep(rec *record.Record) {
	if w := r.plan.Records; w != nil && r.writeErr == nil {
		if err := w.Write(rec); err == nil {
			r.writeErr = w.Flush()
		} else {
			r.writeErr = err
		}
	}
	r.agg.Add(rec)
	if r.plan.Observer != nil {
		r.plan.Observer.Done(rec)
	}
}

// scrapeWindow is a step's view of the server's metrics. It starts with
// the first measured request, so that its counts leave out the warm-up,
// as the client's do.
type scrapeWindow struct {
	ctx     context.Context
	scraper *servermetrics.Scraper // nil: no view
	meter   energy.Meter           // nil: no energy read
	once    sync.Once
	stopped func() servermetrics.View
	energy  *energy.Window
}

// start begins the server's view and the energy reading at the step's
// first measured request (warm-up's are not the step's).
func (w *scrapeWindow) start() {
	if w.scraper == nil && w.meter == nil {
		return
	}
	w.once.Do(func() {
		if w.scraper != nil {
			w.stopped = w.scraper.Watch(w.ctx, time.Second)
		}
		if w.meter != nil {
			w.energy = energy.Begin(w.ctx, w.meter)
		}
	})
}

// energyUse ends the energy reading; ok is false when none started.
func (w *scrapeWindow) energyUse() (energy.Use, bool) {
	w.once.Do(func() {})
	if w.energy == nil {
		return energy.Use{}, false
	}
	return w.energy.End(context.WithoutCancel(w.ctx)), true
}

// stop ends the view; ok is false when none started (no measured request).
func (w *scrapeWindow) stop() (v servermetrics.View, ok bool) {
	w.once.Do(func() {}) // a view not started by now never starts
	if w.stopped == nil {
		return v, false
	}
	return w.stopped(), true
}

// cpuMeter measures the process's CPU over a step against the wall clock.
type cpuMeter struct {
	cpu   time.Duration
	known bool
	wall  time.Time
}

func startCPU() cpuMeter {
	cpu, known := proccpu.Used()
	return cpuMeter{cpu: cpu, known: known, wall: time.Now()}
}

// load is the CPU used since the start, or nil when it is not known.
func (m cpuMeter) load() *metrics.ClientLoad {
	cpu, ok := proccpu.Used()
	if !ok || !m.known {
		return nil
	}
	return metrics.NewClientLoad((cpu - m.cpu).Seconds(), time.Since(m.wall).Seconds(), runtime.GOMAXPROCS(0))
}
