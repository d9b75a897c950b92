package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/internal/proccpu"
	"github.com/tpsbench/tpsbench/internal/termsafe"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

// progress shows a run is alive on stderr: on a terminal one status line
// redrawn four times a second, elsewhere a plain line every few seconds.
// --quiet turns it off. It reads counters the run updates; it never holds
// the measurement up.
type progress struct {
	w        io.Writer
	terminal bool
	total    int // steps in the run
	seen     int // steps begun

	started, done, failed, tokens atomic.Int64

	mu        sync.Mutex
	profile   load.Profile // the current step's, for what is left of it
	label     string
	stepStart time.Time
	history   []sample        // tokens over time, for the recent rate
	shown     map[string]bool // failure reasons told so far (metrics.ReasonKey)

	// cpu reads the process's CPU time (ok false where it cannot)
	cpu       func() (time.Duration, bool)
	lastCPU   time.Duration
	lastCPUAt time.Time

	// width is the terminal's width, 0 when unknown: a line longer than
	// it would wrap, and redrawing from the line's start would then leave
	// the wrapped part behind
	width func() int

	redraw
}

type sample struct {
	at     time.Time
	tokens int64
}

// newProgress shows a run of total steps on w, with the client's CPU
// share (the embedded engine runs in a process of its own, so this
// process's CPU is the client's).
func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, cpu: proccpu.Used}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.terminal = true
		p.width = func() int {
			w, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return w
		}
	}
	return p
}

func (p *progress) start() {
	every := 2 * time.Second
	if p.terminal {
		every = 250 * time.Millisecond
	}
	p.startRedraw(every, p.print)
}

// Start and Flush are the progress line's lifecycle in a run's session.
func (p *progress) Start() error { p.start(); return nil }
func (p *progress) Flush()       { p.stop() }

func (p *progress) stop() {
	p.stopRedraw()
	if p.terminal {
		p.print()
		fmt.Fprintln(p.w)
	}
}

// StepBegan begins a step. Steps are counted here rather than taken from
// the index: a search's probes are numbered as they run, not up to a
// total known ahead.
func (p *progress) StepBegan(_ int, s *tpsbench.Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal && p.seen > 0 {
		fmt.Fprintln(p.w)
	}
	p.seen++
	p.profile, p.label = s.Profile, termsafe.String(s.Label)
	p.started.Store(0)
	p.done.Store(0)
	p.failed.Store(0)
	p.tokens.Store(0)
	p.stepStart = time.Now()
	// the step's rate starts from its start: the first line read "0.0
	// over the last 10 s" with tokens already streamed
	p.history = append(p.history[:0], sample{p.stepStart, 0})
	if p.total > 1 && !p.terminal {
		fmt.Fprintf(p.w, "step %d/%d: %s\n", p.seen, p.total, p.label)
	}
}

func (p *progress) Sent(*record.Record) { p.started.Add(1) }

// Chunk counts tokens as they stream, so the line moves during a long
// response, not only when it ends.
func (p *progress) Chunk(r *record.Record, tokens int) {
	if !r.Warmup {
		p.tokens.Add(int64(tokens))
	}
}

// Done settles a request's tokens: the final count replaces what its
// chunks said (a failed request's tokens leave the count).
func (p *progress) Done(r *record.Record) {
	if r.Warmup {
		p.started.Add(-1)
		return
	}
	p.done.Add(1)
	if !r.OK() {
		p.failed.Add(1)
		p.tokens.Add(-int64(r.Streamed))
		p.firstOfItsKind(r.Error)
	} else {
		p.tokens.Add(int64(r.OutputTokens - r.Streamed))
	}
}

// maxShownReasons bounds the failures told as they happen.
const maxShownReasons = 16

// firstOfItsKind tells a failure as it happens, the first of each reason
// (reports count them all): a run failing for a reason says so at once,
// not only in its records.
func (p *progress) firstOfItsKind(e *record.Error) {
	key, example := metrics.Reason(e)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown[key] || len(p.shown) >= maxShownReasons {
		return
	}
	if p.shown == nil {
		p.shown = map[string]bool{}
	}
	p.shown[key] = true
	clear := ""
	if p.terminal {
		clear = "\r\033[K" // over the status line, redrawn below it
	}
	fmt.Fprintf(p.w, "%sa request failed (%s): %s; further failures like it are counted in the report\n", clear, e.Kind, termsafe.String(example))
}

func (p *progress) print() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	tokens := p.tokens.Load()
	p.history = append(p.history, sample{now, tokens})
	for len(p.history) > 1 && now.Sub(p.history[0].at) > 10*time.Second {
		p.history = p.history[1:]
	}
	recent := 0.0
	if h := p.history[0]; now.Sub(h.at) > 0 {
		recent = float64(tokens-h.tokens) / now.Sub(h.at).Seconds()
	}
	el := now.Sub(p.stepStart)
	left := ""
	switch prof := p.profile; {
	case prof.Requests > 0:
		left = fmt.Sprintf("%d/%d requests", p.done.Load(), prof.Requests)
	case prof.Duration > 0:
		left = fmt.Sprintf("%d requests, %s left", p.done.Load(), max(prof.Duration-el, 0).Round(time.Second))
	}
	if left == "" {
		left = fmt.Sprintf("%d requests", p.done.Load())
	}
	inFlight := max(p.started.Load()-p.done.Load(), 0)
	line := fmt.Sprintf("[%s] %s, %d in flight, %d failed, %d tokens, %.1f tokens/s overall, %.1f over the last 10 s",
		p.label, left, inFlight, p.failed.Load(), tokens, float64(tokens)/max(el.Seconds(), 1e-9), recent)
	if used, ok := p.cpu(); ok {
		if wall := now.Sub(p.lastCPUAt).Seconds(); !p.lastCPUAt.IsZero() && wall > 0 {
			load := metrics.NewClientLoad((used - p.lastCPU).Seconds(), wall, runtime.GOMAXPROCS(0))
			line += fmt.Sprintf(", client CPU %.0f%%", 100*load.Share)
		}
		p.lastCPU, p.lastCPUAt = used, now
	}
	if p.terminal {
		if p.width != nil {
			line = fitLine(line, p.width())
		}
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// fitLine cuts line to fewer runes than width (the last column stays free,
// as some terminals wrap on writing it); width 0 leaves it whole.
func fitLine(line string, width int) string {
	if width < 2 || utf8.RuneCountInString(line) < width {
		return line
	}
	return string([]rune(line)[:width-1])
}
