package e2e_test

import (
	"math"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
)

// TestReasoningGroundTruth: a reasoning model's stream (7 reasoning tokens
// in events of up to 3, then the answer) against the server's own log:
// every chunk's kind and tokens as sent, the first answer and reasoning
// tokens timed within the measured delays, the counts from usage's
// reasoning_tokens, and each phase's rate from the log's spans.
func TestReasoningGroundTruth(t *testing.T) {
	const reasoning, maxTokens = 7, 20
	sc := scripted.Script{TTFT: 30 * time.Millisecond, Gap: 10 * time.Millisecond, PerEvent: 3, Reasoning: reasoning, Usage: true}
	r := measure(t, sc, true, load.Profile{Shape: load.Users{Count: 4}, Requests: 8}, maxTokens)
	delay := checkTiming(t, r, recordClock(r))
	for _, rec := range r.recs {
		log, _ := r.srv.Log(rec.ResponseID)
		var firstR, lastR, firstA, lastA time.Time
		for i, c := range rec.Chunks {
			if (c.Kind == record.ChunkReasoning) != log.Reasons[i] {
				t.Fatalf("%s chunk %d: kind %d, the server sent reasoning %v", rec.ResponseID, i, c.Kind, log.Reasons[i])
			}
			at := log.Events[i]
			if log.Reasons[i] {
				if firstR.IsZero() {
					firstR = at
				}
				lastR = at
			} else {
				if firstA.IsZero() {
					firstA = at
				}
				lastA = at
			}
		}
		if rec.ReasoningTokens != reasoning || rec.AnswerTokens() != maxTokens-reasoning || rec.OutputTokens != maxTokens {
			t.Errorf("%s: %d reasoning and %d answer tokens, want %d and %d", rec.ResponseID, rec.ReasoningTokens, rec.AnswerTokens(), reasoning, maxTokens-reasoning)
		}
		d := delay[rec.ResponseID]
		// TTFA lies after the server's (causality) and beyond the TTFT by
		// the server's gap between the two, give or take the delays
		ttfa, ok := rec.TTFA()
		if !ok || ttfa < firstA.Sub(log.Received) {
			t.Errorf("%s: TTFA %v (%v) before the server's %v", rec.ResponseID, ttfa, ok, firstA.Sub(log.Received))
		}
		if gap := ttfa - rec.TTFT(); math.Abs(float64(gap-firstA.Sub(firstR))) > float64(d) {
			t.Errorf("%s: first answer %v after the first token, the server's %v, more than %v apart", rec.ResponseID, gap, firstA.Sub(firstR), d)
		}
		for _, ph := range []struct {
			name        string
			tokens      int
			first, last time.Time
			get         func() (float64, bool)
		}{
			{"reasoning", reasoning, firstR, lastR, rec.ReasoningTPS},
			{"answer", maxTokens - reasoning, firstA, lastA, rec.AnswerTPS},
		} {
			got, ok := ph.get()
			span := ph.last.Sub(ph.first)
			lo, hi := float64(ph.tokens-1)/(span+d).Seconds(), float64(ph.tokens-1)/max(span-d, 1).Seconds()
			if !ok || got < lo*(1-1e-9) || got > hi*(1+1e-9) {
				t.Errorf("%s: %s TPS %.2f (%v), outside [%.2f, %.2f] from the server's log", rec.ResponseID, ph.name, got, ok, lo, hi)
			}
		}
	}
	g := r.res.Steps[0].Reasoning
	if g == nil || g.Requests != 8 || g.ReasoningTokens != 8*reasoning || g.AnswerTokens != 8*(maxTokens-reasoning) || g.TTFA.Count != 8 {
		t.Fatalf("step's reasoning figures %+v", g)
	}
}
