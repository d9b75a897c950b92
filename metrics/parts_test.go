package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestByModel: a step that sent to two models gives each its own figures
// (model a: TTFT 100 and 300 ms; model b: one failure), and the step's
// model reads as how many there were; a step of one model has none apart.
func TestByModel(t *testing.T) {
	a1, a2 := rec(0, []int64{100, 120}, []int{1, 1}), rec(0, []int64{300, 330}, []int{1, 1})
	a1.Model, a2.Model = "a", "a"
	b := &record.Record{V: 1, Model: "b", Sent: 0, Done: 50 * ms}
	b.Fail(record.KindHTTPStatus, "HTTP 404")
	s := NewAccumulator(Targets{})
	for _, r := range []*record.Record{a1, a2, b} {
		s.Add(r)
	}
	sum := s.Summary()
	if len(sum.Models) != 2 || sum.Model != "2 models" {
		t.Fatalf("models %+v, step model %q", sum.Models, sum.Model)
	}
	ma, mb := sum.Models[0], sum.Models[1]
	if ma.Name != "a" || ma.Completed != 2 || ma.OutputTokens != 4 || ma.TTFT.Count != 2 {
		t.Errorf("model a: %+v", ma)
	}
	near(t, "model a's mean TTFT", ma.TTFT.Mean, 200)
	if mb.Name != "b" || mb.Failed != 1 || mb.Completed != 0 || mb.TTFT.Count != 0 {
		t.Errorf("model b: %+v", mb)
	}
	one := NewAccumulator(Targets{})
	one.Add(a1)
	if m := one.Summary().Models; m != nil {
		t.Errorf("one model: %+v", m)
	}
}
