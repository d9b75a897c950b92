package record

import (
	"math"
	"strings"
	"testing"
)

// TestTPOTOfTokensReadTogether: two tokens read in one instant (first ==
// last) came over no time, so they have no TPOT, not one of 0.
func TestTPOTOfTokensReadTogether(t *testing.T) {
	r := &Record{Sent: 5e9, First: 5.2e9, Last: 5.2e9, OutputTokens: 2}
	if d, ok := r.TPOT(); ok {
		t.Errorf("TPOT %v of two tokens read together", d)
	}
}

// TestPrefillTPSOfAOneTokenPrompt: a prompt of one token has its prefill
// rate too: 1 token over a TTFT of 0.25 s is 4 tokens/s.
func TestPrefillTPSOfAOneTokenPrompt(t *testing.T) {
	r := &Record{Sent: 1e9, First: 1.25e9, OutputTokens: 1, PromptTokens: 1, Chunks: []Chunk{{At: 2.5e8}}}
	if v, ok := r.PrefillTPS(); !ok || v != 4 {
		t.Errorf("prefill %v %v, want 4 tokens/s", v, ok)
	}
}

// TestTextsCutToFourKiB: a line over the bound keeps 4,096 bytes of its
// model name and error message, the length docs/reliability.md gives.
func TestTextsCutToFourKiB(t *testing.T) {
	var e lineEncoder
	e.init()
	e.max = 9 << 10
	r := &Record{Sent: 1, Done: 5, Model: strings.Repeat("m", 5000), Error: &Error{Kind: KindMalformed, Message: strings.Repeat("e", 5000)}}
	if _, err := e.line(r); err != nil {
		t.Fatal(err)
	}
	if len(r.Model) != 4096 || len(r.Error.Message) != 4096 {
		t.Errorf("model cut to %d bytes, error message to %d, want 4096", len(r.Model), len(r.Error.Message))
	}
}

// TestRequestTPSOfOneNanosecond: a request whose token came 1 ns after
// its send has a TPS (a billion tokens a second), not none.
func TestRequestTPSOfOneNanosecond(t *testing.T) {
	r := &Record{Sent: 5e9, First: 5e9 + 1, Last: 5e9 + 1, OutputTokens: 1}
	if v, ok := r.RequestTPS(); !ok || math.Abs(v-1e9) > 1 {
		t.Errorf("request TPS %v %v, want 1e9", v, ok)
	}
}
