package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestAccuracyAndInvariance: a step's accuracy is its right answers over
// its graded ones (failed, warm-up and ungraded requests count in
// neither); a later step's answers are compared by request number with
// the first graded step's, those it has no counterpart for left out.
func TestAccuracyAndInvariance(t *testing.T) {
	graded := func(step string, index, seq int, right bool, answer string) *record.Record {
		r := away(5000, 10)
		r.Step, r.StepIndex, r.Seq = step, index, seq
		r.Graded(right, answer)
		return r
	}
	ss := NewSteps(Targets{})
	ss.Add(away(100, 10)) // an ungraded first step: no accuracy, no base
	for _, r := range []*record.Record{
		graded("c=1", 1, 0, true, "B"), graded("c=1", 1, 1, false, "C"), graded("c=1", 1, 2, true, "A"),
		graded("c=4", 2, 0, true, "B"), graded("c=4", 2, 1, true, "D"), graded("c=4", 2, 7, true, "A"),
	} {
		ss.Add(r)
	}
	failed := graded("c=4", 2, 2, true, "A")
	failed.Fail(record.KindTimeout, "slow")
	warm := graded("c=4", 2, 3, true, "A")
	warm.Warmup = true
	ss.Add(failed)
	ss.Add(warm)
	sums := ss.Summaries()
	if len(sums) != 3 || sums[0].Accuracy != nil {
		t.Fatalf("%d steps, the first's accuracy %+v", len(sums), sums[0].Accuracy)
	}
	a, b := sums[1].Accuracy, sums[2].Accuracy
	if a == nil || a.Graded != 3 || a.Correct != 2 || a.Share != 2.0/3 || a.Compared != 0 || a.Base != "" {
		t.Errorf("c=1: %+v", a)
	}
	// seq 0 the same answer, seq 1 another, seq 7 none in c=1
	if b == nil || b.Graded != 3 || b.Correct != 3 || b.Base != "c=1" || b.Compared != 2 || b.SameAsFirst != 1 {
		t.Errorf("c=4: %+v", b)
	}
}
