package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// waitForStart sleeps until --start-at, or until the run is interrupted.
func (f *runFlags) waitForStart(ctx context.Context, startAt time.Time, stderr io.Writer) {
	if startAt.IsZero() {
		return
	}
	d := time.Until(startAt)
	if d <= -time.Second {
		// within startAtStale (resolve refuses older): a pod that started late
		fmt.Fprintf(stderr, "tpsbench: warning: starting %v after --start-at %s: this run does not start with the others\n",
			(-d).Round(time.Millisecond), startAt.Format(time.RFC3339))
	}
	if d <= 0 {
		return
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "waiting %v for --start-at %s\n", d.Round(time.Millisecond), startAt.Format(time.RFC3339))
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// interruptible returns a context cancelled by SIGINT or SIGTERM (stop
// sending; requests in flight get their grace), one cancelled by a second
// signal (end them now), and which signal came first (for the exit code:
// 130 or 143).
func interruptible(parent context.Context) (ctx, abort context.Context, caught func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	abort, cancelAbort := context.WithCancelCause(context.WithoutCancel(parent))
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	done, stopping := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-sigc:
			got.Store(s)
			cancel(fmt.Errorf("interrupted by the user (%v)", s))
		case <-ctx.Done():
		case <-stopping:
			return
		}
		select {
		case s := <-sigc:
			cancelAbort(fmt.Errorf("interrupted by the user a second time (%v): ended at once", s))
		case <-stopping:
		}
	}()
	caught = func() os.Signal {
		s, _ := got.Load().(os.Signal)
		return s
	}
	return ctx, abort, caught, func() {
		signal.Stop(sigc)
		close(stopping)
		cancel(nil)
		cancelAbort(nil)
		<-done
	}
}

// parseStartAt reads an RFC 3339 time or Unix seconds.
func parseStartAt(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil && secs > 0 && secs < 1e11 {
		return time.Unix(0, int64(secs*1e9)), nil
	}
	return time.Time{}, usagef("--start-at %q: want an RFC 3339 time such as 2026-11-29T12:00:00Z, or Unix seconds", s)
}
