package tpsbench

import (
	"sync"

	"github.com/tpsbench/tpsbench/metrics"
)

// errorWindowDefault is how many finished requests a MaxErrorRate looks
// back on when the plan does not say: GuideLLM's constraint window.
const errorWindowDefault = 30

// errorLimit stops a step once limit of its measured requests have failed
// (Plan.MaxErrors), or once more than rate of the last window finished
// ones did (Plan.MaxErrorRate). It is told on the requests' own
// goroutines, before the scheduler starts another: told when their
// records were read, a fast-failing server had 13 requests sent under a
// limit of 2.
type errorLimit struct {
	limit  int
	rate   float64 // at or above 1: no rate limit
	stop   func()
	mu     sync.Mutex
	failed int
	recent []bool // the last finished requests' failures, a ring
	next   int    // where the next goes in recent
	full   bool   // recent holds a whole window
	inRing int    // failures in recent
	why    *metrics.EarlyStop
}

func newErrorLimit(limit int, rate float64, window int, stop func()) *errorLimit {
	e := &errorLimit{limit: limit, rate: rate, stop: stop}
	if rate >= 0 && rate < 1 {
		if window <= 0 {
			window = errorWindowDefault
		}
		e.recent = make([]bool, window)
	}
	return e
}

// finished is told of every measured request that ended, except those
// the plan itself cancelled.
func (e *errorLimit) finished(ok bool) {
	if e.limit <= 0 && e.recent == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !ok {
		e.failed++
	}
	if e.recent != nil {
		if e.recent[e.next] {
			e.inRing--
		}
		e.recent[e.next] = !ok
		if !ok {
			e.inRing++
		}
		e.next++
		if e.next == len(e.recent) {
			e.next, e.full = 0, true
		}
	}
	if e.why != nil {
		return
	}
	switch {
	case e.limit > 0 && e.failed >= e.limit:
		e.why = &metrics.EarlyStop{Failed: e.failed, Limit: e.limit}
	case e.full && float64(e.inRing) > e.rate*float64(len(e.recent)):
		e.why = &metrics.EarlyStop{Failed: e.inRing, Of: len(e.recent), Rate: e.rate}
	default:
		return
	}
	e.stop() // no request starts after; those in flight get their grace
}

// reached says why the step stopped early, or nil when it did not.
func (e *errorLimit) reached() *metrics.EarlyStop {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.why
}
