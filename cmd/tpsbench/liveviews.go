package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/monitor"
	"github.com/tpsbench/tpsbench/otlp"
	"github.com/tpsbench/tpsbench/record"
)

// liveViews are the observers that watch a run as it goes, as the flags
// ask: the progress line or the dashboard, and the Prometheus exporter.
// The run's session starts and stops them.
func (f *runFlags) liveViews(ctx context.Context, stderr io.Writer, steps int) tpsbench.Observers {
	var views tpsbench.Observers
	switch {
	case f.quiet:
	case f.live:
		d := newDashboard(stderr, "run")
		d.live = true
		views = append(views, d)
	default:
		views = append(views, newProgress(stderr, steps))
	}
	if f.metricsAt != "" {
		views = append(views, &exporterObserver{Exporter: monitor.NewExporter(), addr: f.metricsAt, linger: f.metricsLinger,
			ctx: ctx, stderr: stderr, quiet: f.quiet})
	}
	if f.otelURL != "" {
		exp, err := otlp.New(otlp.Options{URL: f.otelURL}) // resolve checked the URL
		if err == nil {
			views = append(views, &otlpObserver{Exporter: exp, stderr: stderr})
		}
	}
	return views
}

// otlpObserver exports a run to an OpenTelemetry collector and, at its
// end, says what did not reach it: a collector's trouble is a warning,
// never the run's failure.
type otlpObserver struct {
	*otlp.Exporter
	stderr io.Writer
}

func (o *otlpObserver) Stop() {
	if err := o.Err(); err != nil {
		fmt.Fprintf(o.stderr, "warning: %v\n", err)
	}
}

// exporterObserver feeds a run's events to the Prometheus exporter, which
// serves at addr from its Start to its Stop. A run that something scraped
// waits at its Stop, up to linger, for the scrape that sees its final
// counts; an interrupted run (ctx done) does not.
type exporterObserver struct {
	*monitor.Exporter
	addr      string
	linger    time.Duration
	ctx       context.Context
	stderr    io.Writer
	quiet     bool
	stopServe func()
	ended     time.Time
}

func (o *exporterObserver) Start() error {
	stop, url, err := o.Serve(o.addr)
	if err != nil {
		return err
	}
	o.stopServe = stop
	if !o.quiet {
		fmt.Fprintf(o.stderr, "live metrics at %s/metrics\n", url)
	}
	return nil
}

// Flush notes when the measuring ended.
func (o *exporterObserver) Flush() { o.ended = time.Now() }

func (o *exporterObserver) Stop() {
	defer o.stopServe()
	if o.linger <= 0 || o.ended.IsZero() || o.Scraped() == 0 || o.ctx.Err() != nil {
		return
	}
	final := o.ScrapedSince(o.ended)
	select {
	case <-final:
		return
	default:
	}
	if !o.quiet {
		fmt.Fprintf(o.stderr, "waiting up to %v for a last scrape of the final counts (--metrics-linger)\n", o.linger)
	}
	select {
	case <-final:
	case <-time.After(o.linger):
	case <-o.ctx.Done():
	}
}

func (*exporterObserver) StepBegan(int, *tpsbench.Step)        {}
func (o *exporterObserver) Done(r *record.Record)              { o.Observe(r) }
func (o *exporterObserver) Chunk(r *record.Record, tokens int) { o.Exporter.Chunk(r, tokens) }
func (o *exporterObserver) Sent(r *record.Record)              { o.Exporter.Sent(r) }
