package tpsbench

import (
	"slices"
	"strings"
	"sync"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/workload"
)

// sessionHistory holds each session's conversation so far: a turn is sent
// with every message before it and the answers the server gave, as a chat
// application sends them, so that a prefix cache sees what it would in
// real traffic. A session's turns run one after another, so an entry is
// only ever used by one request at a time.
type sessionHistory struct {
	m sync.Map // sessionKey -> []workload.Message
}

// sessionKey tells warm-up sessions from measured ones (both count from 1).
type sessionKey struct {
	warmup  bool
	session int
}

// prepare makes req the job's turn: the history, then the item's new
// message(s); it asks for the answer's text when a turn follows.
func (h *sessionHistory) prepare(job load.Job, item workload.Item, req *client.Request) {
	var prev []content.Message
	if v, ok := h.m.Load(sessionKey{job.Warmup, job.Session}); ok {
		prev = v.([]content.Message)
	}
	turn := item.Messages
	if len(turn) == 0 {
		turn = []content.Message{{Role: "user", Content: item.Prompt}}
	}
	req.Messages = append(slices.Clip(prev), turn...)
	req.Prompt = ""
	if !job.LastTurn {
		req.Answer = &strings.Builder{}
	}
}

// answered keeps the turn and its answer for the session's next turn, or
// forgets the session after its last.
func (h *sessionHistory) answered(job load.Job, req *client.Request) {
	key := sessionKey{job.Warmup, job.Session}
	if job.LastTurn {
		h.m.Delete(key)
		return
	}
	h.m.Store(key, append(req.Messages, content.Message{Role: "assistant", Content: req.Answer.String()}))
}
