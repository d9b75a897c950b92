package main

import (
	"fmt"
	"io"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/monitor"
	"github.com/tpsbench/tpsbench/record"
)

// liveViews are what watches a run as it goes: the progress line or the
// dashboard, and the Prometheus exporter.
type liveViews struct {
	observers   tpsbench.Observers
	prog        *progress
	dash        *dashboard
	stopMetrics func()
}

// startLiveViews starts the views the flags ask for.
func (f *runFlags) startLiveViews(stderr io.Writer, steps int) (*liveViews, error) {
	v := &liveViews{}
	if f.live && !f.quiet {
		v.dash = newDashboard(stderr, "run")
		v.dash.live = true
		v.observers = append(v.observers, v.dash)
		v.dash.start(500 * time.Millisecond)
	} else if !f.quiet {
		v.prog = newProgress(stderr, steps)
		v.observers = append(v.observers, v.prog)
		v.prog.start()
	}
	if f.metricsAt != "" {
		exp := monitor.NewExporter()
		stop, url, err := exp.Serve(f.metricsAt)
		if err != nil {
			v.stop()
			return nil, err
		}
		v.stopMetrics = stop
		if !f.quiet {
			fmt.Fprintf(stderr, "live metrics at %s/metrics\n", url)
		}
		v.observers = append(v.observers, exporterObserver{exp})
	}
	return v, nil
}

// stop ends the progress line or dashboard (before the report prints).
func (v *liveViews) stop() {
	if v.prog != nil {
		v.prog.stop()
		v.prog = nil
	}
	if v.dash != nil {
		v.dash.stop()
		v.dash = nil
	}
}

// close stops the exporter (after the report: a scrape may still come).
func (v *liveViews) close() {
	v.stop()
	if v.stopMetrics != nil {
		v.stopMetrics()
	}
}

// exporterObserver feeds a run's events to the Prometheus exporter.
type exporterObserver struct{ *monitor.Exporter }

func (exporterObserver) StepBegan(int, *tpsbench.Step)        {}
func (o exporterObserver) Done(r *record.Record)              { o.Observe(r) }
func (o exporterObserver) Chunk(r *record.Record, tokens int) { o.Exporter.Chunk(r, tokens) }
func (o exporterObserver) Sent(r *record.Record)              { o.Exporter.Sent(r) }
