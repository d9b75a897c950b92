package energy

import (
	"context"
	"fmt"
)

// Use is the energy a step spent, as a meter read it before and after.
type Use struct {
	Source string  `json:"source"`
	Joules float64 `json:"joules,omitempty"`
	// Unavailable says why there is no figure (no counter readable, a
	// scrape that failed): a report says so rather than show 0.
	Unavailable string `json:"unavailable,omitempty"`
}

// Window measures a meter over a step: Begin before, End after.
type Window struct {
	m      Meter
	before float64
	err    error
}

// Begin reads the meter at a step's start.
func Begin(ctx context.Context, m Meter) *Window {
	w := &Window{m: m}
	w.before, w.err = m.Read(ctx)
	return w
}

// wrapping is a meter whose counter wraps at a range (RAPL's).
type wrapping interface{ Range() (float64, error) }

// End reads the meter at the step's end and gives the energy between.
func (w *Window) End(ctx context.Context) Use {
	u := Use{Source: w.m.Source()}
	if w.err != nil {
		u.Unavailable = w.err.Error()
		return u
	}
	after, err := w.m.Read(ctx)
	if err != nil {
		u.Unavailable = err.Error()
		return u
	}
	d := after - w.before
	if d < 0 {
		r, ok := w.m.(wrapping)
		if !ok {
			u.Unavailable = fmt.Sprintf("the counter fell (%.3f J to %.3f J): reset", w.before, after)
			return u
		}
		span, err := r.Range()
		if err != nil || span <= 0 {
			u.Unavailable = "the counter wrapped and its range is unknown"
			return u
		}
		d += span // wrapped once; a step longer than a wrap cannot be told
	}
	u.Joules = d
	return u
}
