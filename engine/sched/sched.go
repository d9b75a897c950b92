// Package sched runs generation requests on a model: it admits requests up
// to a limit, queues the rest (boundedly), and interleaves the decoding of
// the running ones one token each per round, so that concurrent requests
// progress together and never share state. A request whose context ends
// leaves at the next round and its KV cache is freed.
package sched

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tpsbench/tpsbench/engine/llama"
)

// Request is one generation.
type Request struct {
	Prompt    []int // token ids, BOS included when wanted
	MaxTokens int
	IgnoreEOS bool
	EOS       int
	Sampler   *llama.Sampler
}

// Event is one step of a generation: a token, or the end.
type Event struct {
	Token  int
	Done   bool
	Reason string // when Done: "length", "stop" (end-of-sequence token) or "error"
	Err    error
}

// ErrQueueFull is returned when more requests wait than the queue holds.
var ErrQueueFull = errors.New("the server is at capacity: too many requests waiting")

// Options bound the scheduler.
type Options struct {
	MaxSeqs    int // sequences decoding at once (default 16)
	MaxWaiting int // requests queued beyond those (default 1024)
}

// Stats is a snapshot of the scheduler's state.
type Stats struct {
	Running, Waiting int
	CacheBytes       int
}

// Scheduler owns a model and the goroutine that runs it.
type Scheduler struct {
	model *llama.Model
	opts  Options
	queue chan *job
	quit  chan struct{}
	done  chan struct{}

	mu    sync.Mutex
	stats Stats
}

type job struct {
	ctx    context.Context
	req    Request
	events chan Event
	seq    *llama.Sequence
	last   int // last token fed or made
	made   int
}

// New starts a scheduler on m.
func New(m *llama.Model, opts Options) *Scheduler {
	if opts.MaxSeqs <= 0 {
		opts.MaxSeqs = 16
	}
	if opts.MaxWaiting <= 0 {
		opts.MaxWaiting = 1024
	}
	s := &Scheduler{model: m, opts: opts, queue: make(chan *job, opts.MaxWaiting), quit: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

// Close stops the scheduler; running requests end with an error event.
func (s *Scheduler) Close() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.done
}

// Stats returns a snapshot.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Waiting = len(s.queue)
	return st
}

// Submit queues a request. Events arrive on the returned channel, which is
// closed after the Done event; it is buffered for the whole generation, so
// a slow reader never holds up other requests.
func (s *Scheduler) Submit(ctx context.Context, req Request) (<-chan Event, error) {
	if len(req.Prompt) == 0 {
		return nil, fmt.Errorf("the prompt is empty")
	}
	if len(req.Prompt) >= s.model.Context {
		return nil, fmt.Errorf("the prompt has %d tokens; the context holds %d", len(req.Prompt), s.model.Context)
	}
	if req.MaxTokens <= 0 {
		return nil, fmt.Errorf("max_tokens must be at least 1")
	}
	if req.Sampler == nil {
		req.Sampler = llama.NewSampler(0, 1, 0, 0)
	}
	events := make(chan Event, req.MaxTokens+1)
	j := &job{ctx: ctx, req: req, events: events}
	select {
	case s.queue <- j: // from here on j belongs to the loop
		return events, nil
	default:
		return nil, ErrQueueFull
	}
}

func (s *Scheduler) loop() {
	defer close(s.done)
	var running []*job
	for {
		// Admit: block only when nothing is running.
		for len(running) < s.opts.MaxSeqs {
			var j *job
			if len(running) == 0 {
				select {
				case j = <-s.queue:
				case <-s.quit:
					return
				}
			} else {
				select {
				case j = <-s.queue:
				case <-s.quit:
					for _, r := range running {
						r.finish("error", errors.New("the server is shutting down"))
					}
					return
				default:
				}
			}
			if j == nil {
				break
			}
			if j.ctx.Err() != nil {
				j.finish("error", j.ctx.Err())
				continue
			}
			if err := s.prefill(j); err != nil {
				if !errors.Is(err, errDone) {
					j.finish("error", err)
				}
				continue
			}
			running = append(running, j)
		}
		// One token for every running sequence.
		kept := running[:0]
		for _, j := range running {
			if s.step(j) {
				kept = append(kept, j)
			}
		}
		clear(running[len(kept):])
		running = kept
		s.mu.Lock()
		s.stats.Running = len(running)
		s.stats.CacheBytes = 0
		for _, j := range running {
			s.stats.CacheBytes += j.seq.CacheBytes()
		}
		s.mu.Unlock()
	}
}

// prefill feeds the prompt and samples the first token.
func (s *Scheduler) prefill(j *job) error {
	j.seq = s.model.NewSequence(len(j.req.Prompt) + j.req.MaxTokens)
	var logits []float32
	var err error
	for _, t := range j.req.Prompt {
		if j.ctx.Err() != nil {
			return j.ctx.Err()
		}
		if logits, err = j.seq.Forward(t); err != nil {
			return err
		}
	}
	return j.emit(j.req.Sampler.Sample(logits))
}

// emit sends a made token, and returns errDone when generation has ended.
func (j *job) emit(tok int) error {
	j.last = tok
	if !j.req.IgnoreEOS && tok == j.req.EOS {
		j.finish("stop", nil)
		return errDone
	}
	j.made++
	j.events <- Event{Token: tok}
	if j.made >= j.req.MaxTokens {
		j.finish("length", nil)
		return errDone
	}
	return nil
}

var errDone = errors.New("done")

// step decodes one token; it returns whether the job goes on.
func (s *Scheduler) step(j *job) bool {
	if j.events == nil {
		return false // finished at prefill
	}
	if j.ctx.Err() != nil {
		j.finish("error", j.ctx.Err())
		return false
	}
	if j.seq.Pos() >= s.model.Context {
		j.finish("length", nil)
		return false
	}
	logits, err := j.seq.Forward(j.last)
	if err != nil {
		j.finish("error", err)
		return false
	}
	return j.emit(j.req.Sampler.Sample(logits)) == nil
}

func (j *job) finish(reason string, err error) {
	if j.events == nil {
		return
	}
	j.events <- Event{Done: true, Reason: reason, Err: err}
	close(j.events)
	j.events = nil
	j.seq = nil // the cache goes with it
}
