package metrics

import "fmt"

// EarlyStop says why a step stopped before its plan ended: Failed
// requests reached a count Limit, or Failed of the last Of finished
// requests were more than a share Rate of them.
type EarlyStop struct {
	Failed int
	Limit  int     // the count that stopped it; 0 when a rate did
	Of     int     // the window a rate looked at; 0 when a count did
	Rate   float64 // the share Failed/Of went over
}

// ByRate reports whether a share of failures, not a count, stopped it.
func (e *EarlyStop) ByRate() bool { return e.Of > 0 }

// String says it in a sentence.
func (e *EarlyStop) String() string {
	if e.ByRate() {
		return fmt.Sprintf("%d of its last %d finished requests had failed (%.0f%%, over %g)", e.Failed, e.Of, 100*float64(e.Failed)/float64(e.Of), e.Rate)
	}
	return fmt.Sprintf("%d of its requests had failed (the limit was %d)", e.Failed, e.Limit)
}
