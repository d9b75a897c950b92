package main

import (
	"fmt"
	"io"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/monitor"
	"github.com/tpsbench/tpsbench/record"
)

// liveViews are the observers that watch a run as it goes, as the flags
// ask: the progress line or the dashboard, and the Prometheus exporter.
// The run's session starts and stops them.
func (f *runFlags) liveViews(stderr io.Writer, steps int) tpsbench.Observers {
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
		views = append(views, &exporterObserver{Exporter: monitor.NewExporter(), addr: f.metricsAt, stderr: stderr, quiet: f.quiet})
	}
	return views
}

// exporterObserver feeds a run's events to the Prometheus exporter, which
// serves at addr from its Start to its Stop.
type exporterObserver struct {
	*monitor.Exporter
	addr      string
	stderr    io.Writer
	quiet     bool
	stopServe func()
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

func (o *exporterObserver) Stop() { o.stopServe() }

func (*exporterObserver) StepBegan(int, *tpsbench.Step)        {}
func (o *exporterObserver) Done(r *record.Record)              { o.Observe(r) }
func (o *exporterObserver) Chunk(r *record.Record, tokens int) { o.Exporter.Chunk(r, tokens) }
func (o *exporterObserver) Sent(r *record.Record)              { o.Exporter.Sent(r) }
