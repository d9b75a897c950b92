package record

import (
	"testing"
	"time"
)

// awayFromZero is a request whose stamps are far from 0 (sent 5 s into a
// run that began in 2023), with reasoning, a tool call, a chunk read in
// the same instant as another, and an event carrying no token:
//
//	scheduled 4.9 s, sent 5.0 s, done 5.65 s (after sent: 650 ms)
//	chunk at 200 ms: 2 reasoning tokens
//	chunk at 300 ms: 1 reasoning token
//	chunk at 300 ms: 1 answer token (the same read)
//	chunk at 450 ms: 0 tokens
//	chunk at 600 ms: 2 answer tokens, the last
//	chunk at 700 ms: 1 tool-call token, read before the answer's end
//
// Output 7 tokens, 3 of them reasoning.
func awayFromZero() *Record {
	const ms = int64(time.Millisecond)
	return &Record{
		T0: 1_700_000_000_000_000_000, Scheduled: 4900 * ms, Sent: 5000 * ms, First: 5200 * ms, Last: 5700 * ms, Done: 5750 * ms,
		OutputTokens: 7, ReasoningTokens: 3,
		Chunks: []Chunk{
			{At: 200 * ms, Tokens: 2, Kind: ChunkReasoning},
			{At: 300 * ms, Tokens: 1, Kind: ChunkReasoning},
			{At: 300 * ms, Tokens: 1},
			{At: 450 * ms, Tokens: 0},
			{At: 600 * ms, Tokens: 2},
			{At: 700 * ms, Tokens: 1, Kind: ChunkToolCall},
		},
	}
}

// TestFiguresAwayFromZero: every figure of one request, worked by hand
// from docs/metrics.md's definitions for awayFromZero, so that a sum for
// a difference, or a stamp read from the wrong end, shows.
func TestFiguresAwayFromZero(t *testing.T) {
	const ms = time.Millisecond
	r := awayFromZero()
	tps, tpsOK := r.RequestTPS()
	tpot, tpotOK := r.TPOT()
	ttfr, ttfrOK := r.TTFR()
	ttfa, ttfaOK := r.TTFA()
	rtps, rtpsOK := r.ReasoningTPS()
	atps, atpsOK := r.AnswerTPS()
	for _, c := range []struct {
		name      string
		got, want float64
		ok        bool
	}{
		{"TTFT: first - sent", float64(r.TTFT()), float64(200 * ms), true},
		{"E2E: last - sent", float64(r.E2E()), float64(700 * ms), true},
		{"client lag: sent - scheduled", float64(r.ClientLag()), float64(100 * ms), true},
		{"request TPS: 7 tokens over 0.7 s", tps, 10, tpsOK},
		{"TPOT: 500 ms over 6 gaps, in whole ns", float64(tpot), float64(500 * ms / 6), tpotOK},
		{"TTFR: the first reasoning chunk", float64(ttfr), float64(200 * ms), ttfrOK},
		{"TTFA: the first answer chunk", float64(ttfa), float64(300 * ms), ttfaOK},
		{"reasoning TPS: 2 tokens after the first over 100 ms", rtps, 20, rtpsOK},
		{"answer TPS: 3 tokens after the first over 400 ms", atps, 7.5, atpsOK},
		{"answer tokens: 7 - 3", float64(r.AnswerTokens()), 4, true},
		{"batched: one chunk in another's read", float64(r.Batched()), 1, true},
		{"absolute sent", float64(r.Abs(r.Sent)), 1_700_000_005_000_000_000, true},
	} {
		if !c.ok || c.got != c.want {
			t.Errorf("%s: %v (defined %v), want %v", c.name, c.got, c.ok, c.want)
		}
	}
	// ITL: the arrival at 300 ms carries 2 tokens 100 ms after the
	// first (2 samples of 50 ms), the one at 450 ms none (no sample, and
	// no arrival a gap is timed from), 600 ms 2 tokens 300 ms after 300
	// ms (2 of 150 ms), 700 ms 1 token 100 ms after (1 of 100 ms): the
	// samples add up to last - first
	var itls []time.Duration
	var ats []int64
	sum := time.Duration(0)
	r.ITLsAt(func(at int64, d time.Duration, n int) {
		for range n {
			itls, ats = append(itls, d), append(ats, at)
			sum += d
		}
	})
	want := []time.Duration{50 * ms, 50 * ms, 150 * ms, 150 * ms, 100 * ms}
	if len(itls) != len(want) || sum != time.Duration(r.Last-r.First) || ats[0] != int64(300*ms) || ats[4] != int64(700*ms) {
		t.Fatalf("ITLs %v at %v (sum %v), want %v adding to %v", itls, ats, sum, want, time.Duration(r.Last-r.First))
	}
	for i := range want {
		if itls[i] != want[i] {
			t.Errorf("ITL %d: %v, want %v", i, itls[i], want[i])
		}
	}
	var gaps []time.Duration
	r.ChunkGaps(func(d time.Duration) { gaps = append(gaps, d) })
	if len(gaps) != 5 || gaps[0] != 100*ms || gaps[1] != 0 || gaps[2] != 150*ms || gaps[4] != 100*ms {
		t.Errorf("chunk gaps %v", gaps)
	}
	// figures not defined are absent, not 0
	one := &Record{Sent: 5e9, First: 5.2e9, Last: 5.2e9, OutputTokens: 1}
	if _, ok := one.TPOT(); ok {
		t.Error("a one-token request has a TPOT")
	}
	if _, ok := one.RequestTPS(); !ok {
		t.Error("a one-token request has no request TPS")
	}
	if _, ok := (&Record{Sent: 5e9, Last: 5e9, OutputTokens: 3}).RequestTPS(); ok {
		t.Error("a request of no time has a request TPS")
	}
	if _, ok := one.ReasoningTPS(); ok {
		t.Error("a request without reasoning has a reasoning TPS")
	}
	// one token counted over two chunks (usage said 1): still no gap
	if _, ok := (&Record{Sent: 5e9, First: 5.2e9, Last: 5.3e9, OutputTokens: 1}).TPOT(); ok {
		t.Error("a one-token request spread over time has a TPOT")
	}
}

// TestFailKeepsTheFirst: a record fails once, with the first reason.
func TestFailKeepsTheFirst(t *testing.T) {
	r := &Record{}
	r.Fail(KindTimeout, "slow")
	r.Fail(KindConnect, "refused")
	if r.OK() || r.Error == nil || r.Error.Kind != KindTimeout || r.Error.Message != "slow" {
		t.Errorf("error %+v, want the first: timeout, slow", r.Error)
	}
}

// TestChunkJSON: a chunk reads with spaces anywhere JSON allows, and its
// token count within 2^31-1, as written.
func TestChunkJSON(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Chunk
		ok   bool
	}{
		{"[ 5 , 2 ]", Chunk{At: 5, Tokens: 2}, true},
		{"\t[\n-3,\r1, 2 ]\n", Chunk{At: -3, Tokens: 1, Kind: ChunkToolCall}, true},
		{"[0,2147483647]", Chunk{Tokens: 1<<31 - 1}, true},
		{"[0,2147483648]", Chunk{}, false},
		{"[0,-1]", Chunk{}, false},
		{"[0,1,3]", Chunk{}, false},
		{"[0]", Chunk{}, false},
		{"[0,1,1,1]", Chunk{}, false},
		{"[0,1] x", Chunk{}, false},
	} {
		var got Chunk
		err := got.UnmarshalJSON([]byte(c.in))
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("%q: %+v (%v), want %+v ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestOneAnswerTokenHasNoRate: an answer of one token has no decode rate,
// even when its chunks (one of them empty) spread over time.
func TestOneAnswerTokenHasNoRate(t *testing.T) {
	r := Record{Sent: 1, First: 101, Last: 401, Done: 401, OutputTokens: 3, ReasoningTokens: 2,
		Chunks: []Chunk{{At: 100, Tokens: 1, Kind: ChunkReasoning}, {At: 200, Tokens: 1, Kind: ChunkReasoning}, {At: 300}, {At: 400, Tokens: 1}}}
	if tps, ok := r.AnswerTPS(); ok {
		t.Errorf("answer TPS %v of one token", tps)
	}
}
