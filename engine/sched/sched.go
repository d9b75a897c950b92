// Package sched runs generation requests on a model with continuous
// batching: up to MaxSeqs sequences advance together, one batched forward
// pass a step that reads every weight once for all of them. New requests
// join at the next step, finished ones leave at once, and the rest wait in
// a bounded queue. Prompts are processed whole in a step, or with chunked
// prefill in slices of at most MaxPrefillTokens interleaved with the other
// sequences' decoding. A request whose context ends leaves at the next step
// and its KV cache is freed.
package sched

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/engine/llama"
)

// Request is one generation.
type Request struct {
	Prompt    []int // token ids, BOS included when wanted
	MaxTokens int
	IgnoreEOS bool
	EOG       []int // end-of-generation tokens: end of sequence, end of turn
	Sampler   *llama.Sampler
	// Logprobs asks for each token's log-probability, and TopLogprobs
	// for that many of the most likely tokens at each step
	Logprobs    bool
	TopLogprobs int
	// Pooling, when set (PoolMean, PoolLast, PoolCLS), makes the request
	// an embedding: its prompt is run and nothing generated (MaxTokens
	// 0), and its Done event carries the prompt's hidden states pooled.
	Pooling string
}

// Event is one step of a generation: a token, or the end.
type Event struct {
	Token int
	// Logprob is the token's log-probability, when the request asked
	Logprob *Logprob
	Done    bool
	Reason  string // when Done: "length", "stop" (end-of-sequence token) or "error"
	Err     error
	// Cached, when Done, is how many of the prompt's tokens came from the
	// prefix cache (their prefill skipped).
	Cached int
	// Embedding, when Done, is an embedding request's pooled hidden state
	// (not normalized).
	Embedding []float32
	// Wait, on a request's first token, is where the time from its Submit
	// to that token went.
	Wait *FirstTokenWait
}

// Logprob is a made token's log-probability and the most likely tokens.
type Logprob struct {
	Logprob float32
	Top     []llama.TokenLogprob
}

// ErrQueueFull is returned when more requests wait than the queue holds.
var ErrQueueFull = errors.New("the server is at capacity: too many requests waiting")

// Options bound the scheduler.
type Options struct {
	MaxSeqs    int // sequences decoding at once (default 16)
	MaxWaiting int // requests queued beyond those (default 1024)
	// ChunkedPrefill splits prompts so that a step holds at most
	// MaxPrefillTokens prompt tokens (default 256).
	ChunkedPrefill   bool
	MaxPrefillTokens int
	// StallFactor, with chunked prefill, sizes each step's prompt chunk so
	// that the step takes at most this many times a step of decoding alone
	// (measured as the scheduler runs), keeping running sequences' token
	// rhythm; MaxPrefillTokens still caps it. 0 means fixed chunks.
	StallFactor float64
	// PrefixCaching reuses the KV cache of prompt blocks already seen
	// (up to PrefixCacheBytes, default 256 MiB), skipping their prefill.
	PrefixCaching    bool
	PrefixCacheBytes int
}

// Stats is a snapshot of the scheduler's state.
type Stats struct {
	Running, Waiting int
	CacheBytes       int // held by the running sequences' KV caches
	CacheCapacity    int // what MaxSeqs full-context sequences would hold
	// Prefix cache: prompt tokens looked up and found, and its memory.
	PrefixQueries, PrefixHits uint64
	PrefixBytes               int
	// Steps the engine ran, and the tokens they put through the model
	// (prompt tokens, and each decoding sequence's last token): how full
	// the batches were. StepSizes counts the steps by size, those of at
	// most StepSizeBounds[i] tokens in [i] (and any larger in the last).
	Steps, StepTokens uint64
	StepSizes         [len(StepSizeBounds) + 1]uint64
}

// StepSizeBounds are the classes of Stats.StepSizes: vLLM's buckets for
// tokens an engine step (vllm:iteration_tokens_total).
var StepSizeBounds = [...]int{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}

// Scheduler owns a model and the goroutine that runs it.
type Scheduler struct {
	model *llama.Model
	// running averages of step costs, for StallFactor: seconds of a step
	// with decoding only, and seconds a prompt token adds to a step
	decodeStep, promptToken float64
	opts                    Options
	queue                   chan *job
	quit                    chan struct{}
	done                    chan struct{}

	prefix *prefixCache // nil without prefix caching; used by the loop only

	mu    sync.Mutex
	stats Stats
}

type job struct {
	ctx    context.Context
	req    Request
	events chan Event
	seq    *llama.Sequence
	fed    int // prompt tokens fed so far
	cached int // prompt tokens taken from the prefix cache
	last   int // the last token made, to feed next
	made   int
	pooled []float32 // an embedding's hidden states pooled so far

	// where the first token waits (FirstTokenWait)
	submitted, admitted time.Time
	feeding             int // prompt tokens the step being run feeds
	prefill             time.Duration
	prefillSteps        int
	shared              int
}

// New starts a scheduler on m.
// Seqs is how many sequences decode at once under o: MaxSeqs, or 16
// when it is not set.
func (o Options) Seqs() int {
	if o.MaxSeqs > 0 {
		return o.MaxSeqs
	}
	return 16
}

func New(m *llama.Model, opts Options) *Scheduler {
	opts.MaxSeqs = opts.Seqs()
	if opts.MaxWaiting <= 0 {
		opts.MaxWaiting = 1024
	}
	if opts.MaxPrefillTokens <= 0 {
		opts.MaxPrefillTokens = 256
	}
	s := &Scheduler{model: m, opts: opts, queue: make(chan *job, opts.MaxWaiting), quit: make(chan struct{}), done: make(chan struct{})}
	s.stats.CacheCapacity = opts.MaxSeqs * m.Context * m.KVBytes()
	if opts.PrefixCaching {
		if opts.PrefixCacheBytes <= 0 {
			opts.PrefixCacheBytes = 256 << 20
		}
		s.opts = opts
		s.prefix = newPrefixCache(opts.PrefixCacheBytes)
	}
	go s.loop()
	return s
}

// MaxSeqs is how many sequences decode at once; more requests wait.
func (s *Scheduler) MaxSeqs() int { return s.opts.MaxSeqs }

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
	switch {
	case req.Pooling != "" && !validPooling(req.Pooling):
		return nil, fmt.Errorf("pooling %q: want mean, last or cls", req.Pooling)
	case req.Pooling != "" && req.MaxTokens != 0:
		return nil, fmt.Errorf("an embedding generates nothing: max_tokens 0")
	case req.Pooling == "" && req.MaxTokens <= 0:
		return nil, fmt.Errorf("max_tokens must be at least 1")
	}
	if req.Sampler == nil {
		req.Sampler = llama.NewSampler(0, 1, 0, 0)
	}
	events := make(chan Event, req.MaxTokens+1)
	j := &job{ctx: ctx, req: req, events: events, submitted: time.Now()}
	select {
	case s.queue <- j: // from here on j belongs to the loop
		return events, nil
	default:
		return nil, ErrQueueFull
	}
}

// batch is the loop's state between steps: the running jobs, and the
// buffers every step reuses.
type batch struct {
	running  []*job
	entries  []llama.Entry
	owners   []*job // the job of each logits row of a step
	samplers []*llama.Sampler
	picked   []int
	// hidden are the hidden states a step asked for, of embeddings' tokens
	hidden    []hiddenRow
	hiddenBuf []float32
}

// loop runs the engine: admit waiting requests, assemble one step's
// entries, run it and hand out the tokens, publish the stats; again.
func (s *Scheduler) loop() {
	defer close(s.done)
	var b batch
	for {
		if !s.admit(&b) {
			return
		}
		// Admitted requests run from now, prefill included: a long prompt's
		// step can take seconds, and /metrics showed it as nothing running.
		s.publish(&b)
		s.assemble(&b)
		if len(b.entries) > 0 {
			s.step(&b)
		}
		s.publish(&b)
	}
}

// admit takes waiting requests while there is room, blocking only when
// nothing runs. It returns false when the scheduler is closing, after
// ending what was running.
func (s *Scheduler) admit(b *batch) bool {
	for len(b.running) < s.opts.MaxSeqs {
		var j *job
		if len(b.running) == 0 {
			select {
			case j = <-s.queue:
			case <-s.quit:
				return false
			}
		} else {
			select {
			case j = <-s.queue:
			case <-s.quit:
				for _, r := range b.running {
					r.finish("error", errors.New("the server is shutting down"))
				}
				return false
			default:
			}
		}
		if j == nil {
			return true
		}
		if j.ctx.Err() != nil {
			j.finish("error", j.ctx.Err())
			continue
		}
		j.admitted = time.Now()
		j.seq = s.model.NewSequence(len(j.req.Prompt) + j.req.MaxTokens)
		if s.prefix != nil && j.req.Pooling == "" { // an embedding needs every token's state
			j.fed = s.prefix.restore(j.seq, j.req.Prompt)
			j.cached = j.fed
		}
		b.running = append(b.running, j)
	}
	return true
}

// assemble makes one step: a token for every decoding sequence, and
// prompt tokens for those still in prefill (within the chunked-prefill
// budget). Jobs cancelled or out of context end here.
func (s *Scheduler) assemble(b *batch) {
	b.entries, b.owners = b.entries[:0], b.owners[:0]
	b.hidden = b.hidden[:0]
	budget := s.prefillBudget(b.running)
	kept := b.running[:0]
	for _, j := range b.running {
		if j.ctx.Err() != nil {
			j.finish("error", j.ctx.Err())
			continue
		}
		if j.fed < len(j.req.Prompt) {
			n := len(j.req.Prompt) - j.fed
			if s.opts.ChunkedPrefill {
				if budget <= 0 {
					kept = append(kept, j)
					continue
				}
				n = min(n, budget)
				budget -= n
			}
			for i := 0; i < n; i++ {
				pos := j.fed + i
				last := pos == len(j.req.Prompt)-1
				if j.req.Pooling != "" {
					if readsHidden(j, pos) {
						b.hidden = append(b.hidden, hiddenRow{job: j, pos: pos, entry: len(b.entries)})
					}
					b.entries = append(b.entries, llama.Entry{Seq: j.seq, Token: j.req.Prompt[pos]})
					continue
				}
				b.entries = append(b.entries, llama.Entry{Seq: j.seq, Token: j.req.Prompt[pos], Logits: last})
				if last {
					b.owners = append(b.owners, j)
				}
			}
			j.fed += n
			j.feeding = n
		} else {
			if j.seq.Pos() >= s.model.Context {
				j.finish("length", nil)
				continue
			}
			b.entries = append(b.entries, llama.Entry{Seq: j.seq, Token: j.last, Logits: true})
			b.owners = append(b.owners, j)
		}
		kept = append(kept, j)
	}
	clear(b.running[len(kept):])
	b.running = kept
	b.placeHidden(s.model.Dim)
}

// step runs the assembled entries, samples a token for each logits row
// and sends it to its job; jobs that ended leave the batch.
func (s *Scheduler) step(b *batch) {
	began := time.Now()
	rows, err := s.model.Step(b.entries)
	took := time.Since(began)
	s.learn(took.Seconds(), len(b.entries)-len(b.owners)+countPrefillOwners(b.owners), len(b.entries))
	b.timePrefill(took, len(b.entries))
	if err != nil { // cannot happen with checked prompts; end them all rather than guess
		for _, j := range b.running {
			j.finish("error", err)
		}
	} else {
		s.countStep(len(b.entries))
		if cap(b.picked) < len(b.owners) {
			b.picked = make([]int, len(b.owners))
		}
		b.samplers, b.picked = b.samplers[:0], b.picked[:len(b.owners)]
		for _, j := range b.owners {
			b.samplers = append(b.samplers, j.req.Sampler)
		}
		s.model.SampleAll(b.samplers, rows, b.picked)
		for i, j := range b.owners {
			if s.prefix != nil && j.made == 0 {
				s.prefix.store(j.seq, j.req.Prompt, s.model.KVBytes())
			}
			var lp *Logprob
			if j.req.Logprobs {
				lp = &Logprob{}
				lp.Logprob, lp.Top = llama.Logprobs(rows[i], b.picked[i], j.req.TopLogprobs)
			}
			_ = j.emit(b.picked[i], lp)
		}
	}
	if err == nil {
		b.pool()
	}
	if len(b.owners) > 0 || len(b.hidden) > 0 { // tokens, or a step an embedding may end in
		yieldToReceivers()
	}
	kept := b.running[:0]
	for _, j := range b.running {
		if j.events != nil {
			kept = append(kept, j)
		}
	}
	clear(b.running[len(kept):])
	b.running = kept
}

// yieldToReceivers lets the goroutines this step's tokens or embeddings
// woke run. Go queues a goroutine woken by a channel send to run next on
// the sender's thread, where only an idle thread would take it from, and
// this loop and the model's workers (llama.Pool spins) leave none idle:
// the server's handlers waited for the runtime to preempt the loop, every
// 10-20 ms, and wrote a stream's tokens 16 at a time, 30 us apart, and
// embeddings made one after another all came when the loop ran out of
// work. Having yielded, the loop goes on on whichever thread is free
// first, the handlers on the other.
func yieldToReceivers() { runtime.Gosched() }

// emit sends a made token; it returns errDone when generation has ended.
func (j *job) emit(tok int, lp *Logprob) error {
	j.last = tok
	if !j.req.IgnoreEOS && slices.Contains(j.req.EOG, tok) {
		j.finish("stop", nil)
		return errDone
	}
	j.made++
	ev := Event{Token: tok, Logprob: lp}
	if j.made == 1 {
		ev.Wait = j.firstTokenWait(time.Now())
	}
	j.events <- ev
	if j.made >= j.req.MaxTokens {
		j.finish("length", nil)
		return errDone
	}
	return nil
}

var errDone = errors.New("done")

func (j *job) finish(reason string, err error) {
	if j.events == nil {
		return
	}
	j.events <- Event{Done: true, Reason: reason, Err: err, Cached: j.cached}
	close(j.events)
	j.events = nil
	if j.seq != nil {
		j.seq.Release() // its cache serves the next request
	}
	j.seq = nil
}

// countPrefillOwners counts the logits rows that end a prompt (their entry
// is a prompt token, not a decoded one).
func countPrefillOwners(owners []*job) int {
	n := 0
	for _, j := range owners {
		if j.made == 0 {
			n++
		}
	}
	return n
}
