package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/internal/termsafe"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

// dashboard is the full-screen live view (run --live, watch): rolling TPS
// as a sparkline, latency percentiles so far, in flight and failures. The
// measurement only adds records under a lock; drawing works on summaries
// taken on its own goroutine.
type dashboard struct {
	w     io.Writer
	title string

	mu    sync.Mutex
	steps *metrics.Steps
	sent  atomic.Int64
	ended atomic.Int64

	skipped  atomic.Int64
	lastSkip atomic.Pointer[string] // why the last skipped line is not a record

	// what is streaming now (run --live): tokens of requests not yet
	// ended, and every streamed token by the second it came; a records
	// file (watch) has finished requests only
	live      bool
	terminal  bool // w is a terminal: each draw clears the screen first
	streaming atomic.Int64
	perSecond metrics.SecondBins

	redraw
}

func newDashboard(w io.Writer, title string) *dashboard {
	f, ok := w.(*os.File)
	return &dashboard{w: w, title: title, steps: metrics.NewSteps(metrics.Targets{}),
		terminal: ok && term.IsTerminal(int(f.Fd()))}
}

// StepBegan is nothing to the dashboard: each record names its step.
func (d *dashboard) StepBegan(int, *tpsbench.Step) {}

func (d *dashboard) Sent(*record.Record) { d.sent.Add(1) }

// Chunk counts tokens of requests still streaming, and places them in the
// second they arrived, so the view moves with every chunk.
func (d *dashboard) Chunk(r *record.Record, tokens int) {
	if r.Warmup {
		return
	}
	d.streaming.Add(int64(tokens))
	d.perSecond.Add(r.T0+r.Last, tokens)
}

// Done moves a request's tokens from streaming to its step's figures.
func (d *dashboard) Done(r *record.Record) {
	if !r.Warmup {
		d.streaming.Add(-int64(r.Streamed))
	}
	d.record(r)
}

func (d *dashboard) record(r *record.Record) {
	d.ended.Add(1)
	d.mu.Lock()
	d.steps.Add(r)
	d.mu.Unlock()
}

// skip counts a line of the records file that is not a record.
func (d *dashboard) skip(err error) {
	d.skipped.Add(1)
	msg := err.Error()
	d.lastSkip.Store(&msg)
}

func (d *dashboard) start(every time.Duration) {
	if d.terminal {
		fmt.Fprint(d.w, "\033[?25l") // hide the cursor while drawing
	}
	if d.live && !d.terminal {
		// a file or a pipe: redrawn every half second it held a view
		// again and again (a 2 s run wrote 150 lines); drawn once, at the end
		fmt.Fprintln(d.w, "tpsbench: --live: stderr is not a terminal, so the live view is drawn once, when the run ends")
		return
	}
	d.startRedraw(every, d.draw)
}

// Start and Flush are the dashboard's lifecycle in a run's session:
// drawn every half second from its start, drawn last as it ends.
func (d *dashboard) Start() error { d.start(500 * time.Millisecond); return nil }
func (d *dashboard) Flush()       { d.stop() }

func (d *dashboard) stop() {
	d.stopRedraw()
	d.draw()
	if d.terminal {
		fmt.Fprint(d.w, "\033[?25h") // the cursor back
	}
	fmt.Fprintln(d.w)
}

var sparks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last n values scaled to their maximum.
func sparkline(vals []float64, n int) string {
	if len(vals) > n {
		vals = vals[len(vals)-n:]
	}
	top := 0.0
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if top > 0 {
			i = int(v / top * float64(len(sparks)-1))
		}
		b.WriteRune(sparks[i])
	}
	return b.String()
}

func (d *dashboard) draw() {
	d.mu.Lock()
	sums := d.steps.Summaries()
	d.mu.Unlock()
	var b strings.Builder
	if d.terminal {
		// only a terminal takes the escapes (watch --once | cat wrote
		// them into files)
		b.WriteString("\033[H\033[2J")
	}
	fmt.Fprintf(&b, "tpsbench %s   %s\n\n", d.title, time.Now().Format("15:04:05"))
	if sent := d.sent.Load(); sent > 0 {
		fmt.Fprintf(&b, "in flight: %d\n", max(sent-d.ended.Load(), 0))
	}
	if n := d.skipped.Load(); n > 0 {
		fmt.Fprintf(&b, "skipped %d lines that are not records (last: %s)\n", n, termsafe.String(*d.lastSkip.Load()))
	}
	if d.live {
		per := d.perSecond.Last(60, time.Now())
		fmt.Fprintf(&b, "streaming: %d tokens in requests not yet ended\n", d.streaming.Load())
		// (under 100 columns: 120 wrapped, and redrawing left the rest)
		fmt.Fprintf(&b, "TPS, last %d s: %s  (last second %.0f)\n\n", len(per), sparkline(per, 60), per[len(per)-1])
	} else {
		b.WriteString("(a records file holds finished requests: tokens count when each request ends)\n\n")
	}
	if len(sums) == 0 {
		b.WriteString("waiting for requests to finish...\n")
	}
	for _, s := range sums {
		fmt.Fprintf(&b, "%s  (%s)\n", termsafe.String(s.Label), termsafe.String(s.Model))
		fmt.Fprintf(&b, "  requests: %d completed, %d failed", s.Requests.Completed, s.Requests.Failed)
		for k, n := range s.Requests.Failures {
			fmt.Fprintf(&b, " [%s %d]", termsafe.String(k), n)
		}
		peak := "-" // a step under two windows has none
		if s.PeakTPS > 0 {
			peak = fmt.Sprintf("%.1f", s.PeakTPS)
		}
		fmt.Fprintf(&b, "\n  tokens: %d   system TPS: %.1f   peak 1 s: %s\n", s.OutputTokens, s.SystemTPS, peak)
		if s.Charts != nil && !d.live { // live, the streaming view below shows rates
			// one bar a second: every tenth point of the 100 ms series
			// (every point, once long spans have widened the bins)
			step := s.Charts.RollingStepMS
			if step <= 0 {
				step = 100
			}
			stride := max(1, int(1000/step))
			var per []float64
			for i := len(s.Charts.Rolling1s) - 1; i >= 0 && len(per) < 60; i -= stride {
				per = append([]float64{s.Charts.Rolling1s[i].V}, per...)
			}
			if len(per) > 0 {
				fmt.Fprintf(&b, "  TPS, last %d s: %s  (now %.1f)\n", len(per), sparkline(per, 60), per[len(per)-1])
			}
		}
		fmt.Fprintf(&b, "  %-16s %10s %10s %10s\n", "", "p50", "p90", "p99")
		for _, row := range []struct {
			name string
			d    metrics.Dist
		}{{"TTFT ms", s.TTFT}, {"TPOT ms", s.TPOT}, {"ITL ms", s.ITL}, {"request TPS", s.RequestTPS}} {
			fmt.Fprintf(&b, "  %-16s %10.2f %10.2f %10.2f\n", row.name, row.d.P50, row.d.P90, row.d.P99)
		}
		b.WriteString("\n")
	}
	io.WriteString(d.w, b.String())
}
