package metrics

import "testing"

// TestCostAt: at $3.60 an hour, a step of 100 output tokens a second (1e5
// over 1,000 s) costs $0.001 a second, $10 a million output tokens; its
// 2e5 input tokens $5 a million; a step without tokens has no cost.
func TestCostAt(t *testing.T) {
	s := Summary{DurationS: 1000, OutputTokens: 1e5, InputTokens: 2e5}
	c := CostAt(&s, 3.6)
	if c == nil {
		t.Fatal("no cost")
	}
	near(t, "output", c.PerMillionOutput, 10)
	near(t, "input", c.PerMillionInput, 5)
	if CostAt(&Summary{DurationS: 10}, 3.6) != nil || CostAt(&s, 0) != nil {
		t.Error("a cost of nothing")
	}
}
