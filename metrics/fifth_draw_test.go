package metrics

import (
	"math"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestNoAudioNoRealTimeFactor: a step whose requests carried no audio has
// no real-time factor, neither a 0 of audio over 0 s of processing (NaN,
// which JSON cannot hold) nor a value at all.
func TestNoAudioNoRealTimeFactor(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 100, 200))
	sum := s.Summary()
	if sum.RealTimeFactor != 0 || sum.AudioSeconds != 0 || sum.AudioSecondsPerSecond != 0 {
		t.Errorf("real-time factor %v, audio %v s (%v a second) without audio", sum.RealTimeFactor, sum.AudioSeconds, sum.AudioSecondsPerSecond)
	}
}

// TestVLLMMoreBareEventsThanTokens: vLLM counts every event with choices,
// the role-only and finish-only ones too, so a response of one token event
// and two bare ones has three events: TTFT at the role's 10 ms, latency at
// the finish's 50 ms, two ITLs of 20 ms.
func TestVLLMMoreBareEventsThanTokens(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	r := rec(0, []int64{30}, []int{1})
	r.OtherEvents = []int64{10 * ms, 50 * ms}
	ss.Add(r)
	s := ss.Summaries()[0]
	near(t, "TTFT", s.TTFT.Mean, 10)
	near(t, "E2E", s.E2E.Mean, 50)
	if s.ITL.Count != 2 || math.Abs(s.ITL.Mean-20) > 1e-9 {
		t.Errorf("ITL %+v, want two of 20 ms", s.ITL)
	}
}

// TestGenAIPerfOneTokenInTwoResponses: GenAI-Perf's ITL divides by n - 1
// tokens, so a request whose one token came split over two responses (a
// character's bytes in each) has none, not an infinite one.
func TestGenAIPerfOneTokenInTwoResponses(t *testing.T) {
	s := genaiPerfStep(nsRecord([]int64{1e6, 2e6}, []int{1, 0}))
	if s.ITL.Count != 0 || s.RequestTPS.Count != 0 || s.TTFT.Count != 1 {
		t.Errorf("ITL %+v, TPS per user %+v, TTFT count %d", s.ITL, s.RequestTPS, s.TTFT.Count)
	}
}

// TestCostUnderADollarAnHour: a machine at $0.50 an hour prices its
// tokens too: 3,600 output tokens over 1 s are 12.96 million an hour, so
// a million cost 0.5 / 12.96 dollars.
func TestCostUnderADollarAnHour(t *testing.T) {
	c := CostAt(&Summary{DurationS: 1, OutputTokens: 3600}, 0.5)
	if c == nil {
		t.Fatal("no cost at $0.50 an hour")
	}
	near(t, "per million output", c.PerMillionOutput, 0.5/12.96)
}

// TestVLLMNothingCompletedNoZeros: vLLM's `x or 0` makes a TPOT and an ITL
// of 0 out of completed requests without them; a step where nothing
// completed has no such figures to print.
func TestVLLMNothingCompletedNoZeros(t *testing.T) {
	ss := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	r := &record.Record{V: 1, Stream: true, Sent: 0, Done: 80 * ms}
	r.Fail(record.KindEmpty, "the response completed without an output token")
	ss.Add(r)
	s := ss.Summaries()[0]
	if s.TPOT.Count != 0 || s.ITL.Count != 0 {
		t.Errorf("TPOT %+v, ITL %+v with nothing completed", s.TPOT, s.ITL)
	}
}

// TestUsageAtTheBudgetNotShort: without a finish reason the server's own
// count tells an early end, and a count equal to max_tokens is the budget
// spent, not a short output; one below it is short.
func TestUsageAtTheBudgetNotShort(t *testing.T) {
	for _, c := range []struct {
		max   int
		short int
	}{{max: 3, short: 0}, {max: 4, short: 1}} {
		s := NewAccumulator(Targets{})
		r := away(5000, 100, 200, 300)
		r.MaxTokens = c.max
		s.Add(r)
		if got := s.Summary().ShortOutputs; got != c.short {
			t.Errorf("3 tokens of usage, max_tokens %d: %d short outputs, want %d", c.max, got, c.short)
		}
	}
}

// TestLanesAreFortyEight: the swim-lane chart holds 48 sessions' rows, the
// number docs/flags.md gives for sessions.png; the 49th session's turns are not kept.
func TestLanesAreFortyEight(t *testing.T) {
	s := NewAccumulator(Targets{})
	for i := range 49 {
		r := away(5000+int64(i), 10)
		r.Session, r.Turn = i+1, 1
		s.Add(r)
	}
	sess := s.Summary().Sessions
	if len(sess.Lanes) != 48 || sess.Sessions != 49 {
		t.Errorf("%d lanes of %d sessions, want 48 of 49", len(sess.Lanes), sess.Sessions)
	}
}

// TestNoTPSNoRequestTPSSample: a request whose token came in the instant
// it was sent has no TPS of its own (no time to divide by), so the step's
// request TPS counts the other request only.
func TestNoTPSNoRequestTPSSample(t *testing.T) {
	s := NewAccumulator(Targets{})
	s.Add(away(5000, 0))
	s.Add(away(5000, 100, 200))
	if d := s.Summary().RequestTPS; d.Count != 1 {
		t.Errorf("request TPS of %d samples, want 1", d.Count)
	}
}
