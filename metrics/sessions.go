package metrics

import (
	"sort"

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
	// Lanes are the first sessions' turns, each from its send to its end
	// in seconds after the earliest of them: a swim-lane chart's rows.
	Lanes []SessionLane `json:"lanes,omitempty"`
}

// SessionLane is one session's turns, in the order they were measured.
type SessionLane struct {
	Session int          `json:"session"`
	Turns   [][2]float64 `json:"turns"`
}

// maxLanes bounds the sessions whose turns a step keeps for its lanes.
const maxLanes = 48

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
	lane       [][2]int64 // each turn's send and end (absolute ns), for the first maxLanes sessions
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
		if len(a.spans) < maxLanes {
			sp.lane = [][2]int64{}
		}
		a.spans[id] = sp
	}
	if sp.lane != nil {
		sp.lane = append(sp.lane, [2]int64{sent, done})
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
	s.Lanes = a.lanes()
	return s
}

// lanes are the kept sessions' turns, in session order, in seconds after
// the earliest send among them.
func (a *sessionAcc) lanes() []SessionLane {
	var ids []sessionID
	var origin int64
	for id, sp := range a.spans {
		if sp.lane == nil {
			continue
		}
		if len(ids) == 0 || sp.start < origin {
			origin = sp.start
		}
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].run != ids[j].run {
			return ids[i].run < ids[j].run
		}
		return ids[i].session < ids[j].session
	})
	out := make([]SessionLane, 0, len(ids))
	for _, id := range ids {
		ln := SessionLane{Session: id.session}
		for _, t := range a.spans[id].lane {
			ln.Turns = append(ln.Turns, [2]float64{float64(t[0]-origin) / 1e9, float64(t[1]-origin) / 1e9})
		}
		out = append(out, ln)
	}
	return out
}
