package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/record"
)

// progress prints a status line on stderr every few seconds, so a long run
// shows it is alive; --quiet turns it off.
type progress struct {
	w     io.Writer
	steps []tpsbench.Step

	mu        sync.Mutex
	stepIdx   int
	label     string
	done      int
	failed    int
	tokens    int64
	stepStart time.Time

	ticker *time.Ticker
	quit   chan struct{}
	wg     sync.WaitGroup
}

func newProgress(w io.Writer, steps []tpsbench.Step) *progress {
	return &progress{w: w, steps: steps, quit: make(chan struct{})}
}

func (p *progress) start() {
	p.ticker = time.NewTicker(2 * time.Second)
	p.wg.Go(func() {
		for {
			select {
			case <-p.quit:
				return
			case <-p.ticker.C:
				p.print()
			}
		}
	})
}

func (p *progress) stop() {
	p.ticker.Stop()
	close(p.quit)
	p.wg.Wait()
}

func (p *progress) step(i int, s *tpsbench.Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stepIdx, p.label = i, s.Label
	p.done, p.failed, p.tokens = 0, 0, 0
	p.stepStart = time.Now()
	if len(p.steps) > 1 {
		fmt.Fprintf(p.w, "step %d/%d: %s\n", i+1, len(p.steps), s.Label)
	}
}

func (p *progress) record(r *record.Record) {
	if r.Warmup {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if !r.OK() {
		p.failed++
	} else {
		p.tokens += int64(r.OutputTokens)
	}
}

func (p *progress) print() {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.stepStart).Seconds()
	total := "?"
	if prof := p.steps[p.stepIdx].Profile; prof.Requests > 0 {
		total = fmt.Sprint(prof.Requests)
	}
	fmt.Fprintf(p.w, "[%s] %d/%s requests done, %d failed, %d tokens, %.1f tokens/s so far\n",
		p.label, p.done, total, p.failed, p.tokens, float64(p.tokens)/max(el, 1e-9))
}
