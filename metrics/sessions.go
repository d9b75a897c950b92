package metrics

import (
	"github.com/tpsbench/tpsbench/record"
)

// Sessions are the figures of a step's multi-turn sessions (records with
// a session and turn): what a user of a chat feels over a conversation.
type Sessions struct {
	Sessions int `json:"sessions"` // sessions with a measured turn
	Turns    int `json:"turns"`    // the most turns a session had
	// Duration is a session's time from its first turn's send to its
	// last turn's end, think times included, in seconds.
	Duration Dist `json:"duration_s"`
	// TTFT of first turns and of later ones, which carry the
	// conversation so far as their prompt (a prefix cache's part shows
	// here), in ms.
	FirstTTFT Dist `json:"first_turn_ttft_ms"`
	LaterTTFT Dist `json:"later_turn_ttft_ms"`
}

// sessionAcc gathers a step's sessions.
type sessionAcc struct {
	spans                map[sessionID]*sessionSpan
	firstTTFT, laterTTFT *histogram
}

// sessionID is a session of one run (merged shards number theirs alike).
type sessionID struct {
	run     string
	session int
}

type sessionSpan struct {
	start, end int64 // absolute ns
	turns      int
}

func newSessionAcc() sessionAcc {
	return sessionAcc{spans: map[sessionID]*sessionSpan{}, firstTTFT: newLatency(), laterTTFT: newLatency()}
}

// add counts a measured record of a session, failed or completed.
func (a *sessionAcc) add(r *record.Record) {
	if r.Session <= 0 {
		return
	}
	id := sessionID{r.Run, r.Session}
	sent, done := r.Abs(r.Sent), r.Abs(r.Done)
	sp, ok := a.spans[id]
	if !ok {
		sp = &sessionSpan{start: sent, end: done}
		a.spans[id] = sp
	}
	sp.start, sp.end = min(sp.start, sent), max(sp.end, done)
	sp.turns = max(sp.turns, r.Turn)
	if !r.OK() || r.OutputTokens == 0 || r.First < r.Sent {
		return
	}
	if r.Turn == 1 {
		a.firstTTFT.add(float64(r.TTFT()))
	} else {
		a.laterTTFT.add(float64(r.TTFT()))
	}
}

// summary is the sessions' figures, or nil when the step had none.
func (a *sessionAcc) summary() *Sessions {
	if len(a.spans) == 0 {
		return nil
	}
	s := &Sessions{Sessions: len(a.spans)}
	durations := newLatency()
	for _, sp := range a.spans {
		s.Turns = max(s.Turns, sp.turns)
		durations.add(float64(sp.end - sp.start))
	}
	s.Duration = durations.summary(1e9)
	s.FirstTTFT = a.firstTTFT.summary(1e6)
	s.LaterTTFT = a.laterTTFT.summary(1e6)
	return s
}
