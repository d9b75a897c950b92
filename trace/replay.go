package trace

import (
	"errors"
	"io"
	"iter"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// Replay replays a trace: it is both the load's shape (a load.Pacer of
// each entry's offset, ending after the last) and the workload (a prompt of the entry's input
// length sharing its blocks, a budget of its output length:
// workload.Source), entries read as they are due. An entry that kept its
// prompt (proxy --record-prompts) sends that prompt again.
type Replay struct {
	rd      Entries
	prompts workload.Synthetic

	mu      sync.Mutex
	pending map[int]Entry // scheduled, their items not yet made, by seq
	seq     int
	cache   prefixCache // the blocks earlier entries had
	err     error
	// speech is what a trace's audio is cut from, made when the first
	// entry with audio is scheduled, before it is due
	speech *workload.Speech
}

// Entries gives a trace's entries in arrival order, io.EOF after the
// last: a Reader, or any other source of them.
type Entries interface {
	Next(e *Entry) error
	Stats() Stats
}

// NewReplay replays rd's entries with prompts made of prompts' words
// (calibrated to the server's tokens, its Seed choosing the words).
func NewReplay(rd Entries, prompts workload.Synthetic) *Replay {
	return &Replay{rd: rd, prompts: prompts, pending: map[int]Entry{}, cache: newPrefixCache()}
}

// String is the replay's label in reports.
func (r *Replay) String() string { return "trace" }

// Check implements load.Shape: the entries are checked as they are read.
func (r *Replay) Check() error { return nil }

// Finite says the replay ends with its trace: it needs no request count
// or duration.
func (r *Replay) Finite() bool { return true }

// CheckProfile: a replay is read once, at the trace's own times, so it
// has no warm-up and no sessions.
func (r *Replay) CheckProfile(p load.Profile) error {
	switch {
	case p.Warmup != 0:
		return errors.New("a trace's replay has no warm-up: its requests are the trace's")
	case p.Sessions.Turns > 1:
		return errors.New("a trace times every request itself: it has no sessions")
	}
	return nil
}

// Arrivals implements load.Pacer: each entry's offset, read as it is
// due, with no rate of its own. A trace that cannot be read on ends them;
// Err says why. A replay's arrivals are read once: the trace is not read
// again.
func (r *Replay) Arrivals(uint64) iter.Seq[load.Arrival] {
	return func(yield func(load.Arrival) bool) {
		for {
			at, ok := r.next()
			if !ok || !yield(load.Arrival{At: at}) {
				return
			}
		}
	}
}

// next schedules the next entry and gives its start.
func (r *Replay) next() (time.Duration, bool) {
	var e Entry
	err := r.rd.Next(&e)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			r.err = err
		}
		return 0, false
	}
	r.pending[r.seq] = e
	r.seq++
	if e.AudioSeconds > 0 && r.speech == nil {
		r.speech = workload.NewSpeech(r.prompts.Seed)
	}
	return e.Offset, true
}

// Err is the error that ended the replay before the trace's end, if any.
func (r *Replay) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Stats says what the trace's reader gave out, skipped and moved.
func (r *Replay) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rd.Stats()
}

// Item makes the seq-th scheduled request (workload.Source). The load
// asks for each once, after its arrival.
func (r *Replay) Item(seq int, _ bool) workload.Item {
	r.mu.Lock()
	e, ok := r.pending[seq]
	delete(r.pending, seq)
	if !ok {
		r.mu.Unlock()
		return workload.Item{Prompt: "-", MaxTokens: 1}
	}
	reused := r.cache.reuse(&e)
	r.mu.Unlock()
	it, err := workload.ParsePrompt(e.Request)
	switch {
	case e.Inputs > 0:
		it = r.inputsOf(e)
	case e.Request == nil || err != nil || (it.Prompt == "" && len(it.Messages) == 0):
		// none kept, or none to send again: words of its length
		it = workload.Item{Prompt: r.prompts.PromptOf(e.InputTokens, e.Blocks, e.BlockTokens, uint64(e.Index))}
	}
	if e.AudioSeconds > 0 {
		it.Media = r.audioOf(e.AudioSeconds, e.Index)
	}
	it.MaxTokens = e.OutputTokens
	it.Trace = &record.TraceRef{Line: e.Line, Offset: int64(e.Offset), InputTokens: e.InputTokens,
		OutputTokens: e.OutputTokens, ReusedTokens: reused}
	return it
}

// audioOf is speech-like audio of seconds for the index-th entry, as
// the trace's request sent (none past the length audio is made to).
func (r *Replay) audioOf(seconds float64, index int) []content.Media {
	r.mu.Lock()
	speech := r.speech
	r.mu.Unlock()
	clip, err := speech.Clip(seconds, index)
	if err != nil {
		return nil
	}
	return []content.Media{clip}
}

// inputsOf is the item of a request that generated nothing: its inputs
// as words, its prompt tokens shared among them, the first also its
// prompt (for an API that takes one).
func (r *Replay) inputsOf(e Entry) workload.Item {
	it := workload.Item{Inputs: make([]string, e.Inputs)}
	each := max(1, (e.InputTokens+e.Inputs/2)/e.Inputs)
	for i := range it.Inputs {
		it.Inputs[i] = r.prompts.PromptOf(each, nil, 0, uint64(e.Index)<<20|uint64(i))
	}
	it.Prompt = it.Inputs[0]
	return it
}
