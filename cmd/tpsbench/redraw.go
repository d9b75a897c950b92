package main

import (
	"sync"
	"time"
)

// redraw calls a live view's draw on its own goroutine at an interval, so
// that drawing never holds the measurement up.
type redraw struct {
	quit chan struct{}
	wg   sync.WaitGroup
}

func (r *redraw) startRedraw(every time.Duration, draw func()) {
	r.quit = make(chan struct{})
	r.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.quit:
				return
			case <-t.C:
				draw()
			}
		}
	})
}

// stopRedraw returns once the last draw has ended; it does nothing if
// redrawing never started.
func (r *redraw) stopRedraw() {
	if r.quit != nil {
		close(r.quit)
		r.wg.Wait()
	}
}
