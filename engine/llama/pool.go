package llama

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs a job over row ranges on several threads. A matrix-vector
// product takes tens of microseconds, so waking a parked goroutine for each
// one (about 24 us on these machines) would cost more than it saves:
// workers spin for a while before parking. Run allocates nothing: it
// alternates between two task records, and reuses one only once every
// worker has left it.
type Pool struct {
	threads int
	// crowded: more threads than Go ran goroutines at once when the pool
	// started (await)
	crowded bool
	tasks   [2]task
	cur     atomic.Pointer[task]
	seq     uint64

	mu      sync.Mutex
	cond    *sync.Cond
	parked  int
	closed  atomic.Bool
	workers sync.WaitGroup

	// fault is the first memory fault a job hit: the weights are mapped
	// from the model file, and reading a page of a file truncated since
	// raises SIGBUS. Made a panic (debug.SetPanicOnFault) and caught, it
	// fails the pass instead of killing the process; it stays set, since
	// the weights can no longer be trusted.
	fault atomic.Pointer[error]
}

type task struct {
	seq   atomic.Uint64
	job   func(lo, hi int)
	n     int
	size  int
	total int64
	// next and done, which the threads write, each on a cache line of its
	// own, away from the fields every chunk reads: sharing one made a pass
	// over the threads cost 2.1 us beside its work, 1.4 us apart with help's
	// single count (BenchmarkPoolRun/32)
	_      [64]byte
	next   atomic.Int64
	_      [56]byte
	done   atomic.Int64
	_      [56]byte
	inside atomic.Int32 // workers that may be reading this task's fields
}

// spinFor is how long an idle worker spins before parking.
const spinFor = 200 * time.Microsecond

// NewPool starts threads-1 workers (the caller's goroutine is the other).
func NewPool(threads int) *Pool {
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	p := &Pool{threads: threads, crowded: threads > runtime.GOMAXPROCS(0)}
	p.cond = sync.NewCond(&p.mu)
	p.cur.Store(&p.tasks[0])
	for i := 1; i < threads; i++ {
		p.workers.Add(1)
		go p.work()
	}
	return p
}

// Threads is the number of threads jobs run on.
func (p *Pool) Threads() int { return p.threads }

// Close stops the workers.
func (p *Pool) Close() {
	if p.closed.Swap(true) {
		return
	}
	p.mu.Lock()
	p.cond.Broadcast()
	p.mu.Unlock()
	p.workers.Wait()
}

// Run calls job over [0, n) split in chunks, on every thread, and returns
// when all are done. Not safe for concurrent use.
func (p *Pool) Run(n int, job func(lo, hi int)) {
	if p.threads == 1 || n < 2 {
		job(0, n) // on the caller's goroutine: Model.Step catches its faults
		return
	}
	t := &p.tasks[0]
	if p.cur.Load() == t {
		t = &p.tasks[1]
	}
	for t.inside.Load() != 0 { // stragglers of the job before last
		runtime.Gosched()
	}
	chunks := p.threads * 4
	t.size = (n + chunks - 1) / chunks
	t.job, t.n = job, n
	t.total = int64((n + t.size - 1) / t.size)
	t.next.Store(0)
	t.done.Store(0)
	p.seq++
	t.seq.Store(p.seq)
	p.cur.Store(t)
	p.mu.Lock()
	if p.parked > 0 {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
	t.help(p)
	p.await(t)
	t.job = nil
}

// yieldAfter is how long Run spins for the other threads' last chunks
// before it lets other goroutines have its thread: far longer than a
// decoding pass's wait, so that only a worker kept from its thread (by a
// goroutine holding it, as a handler encoding a long answer may) is
// given this one.
const yieldAfter = time.Millisecond

// await waits until every chunk of t is done. Its goroutine keeps the
// thread while it waits, a few microseconds when each thread has a core
// and more when the machine takes one away: yielding at once handed the
// thread to a server's handler woken by the last step, and the step went
// on only once the handler had written its chunk. The handlers the step's
// tokens wake run when the engine's loop yields once after handing them
// out (sched's yieldToReceivers): Go queues them to run next on this
// thread, and a worker's yield, which takes work from the global queue
// first, never reaches them (the measurements that chose this wait are in
// the commit that made it).
// With more threads than Go runs goroutines at once, a worker holding a chunk
// may be waiting for this very thread: then it yields every turn
// (decided when the pool starts, as asking GOMAXPROCS takes the
// scheduler's lock, which every yielding thread takes too).
func (p *Pool) await(t *task) {
	var began time.Time
	for spins := 0; t.done.Load() < t.total; spins++ {
		if p.crowded {
			runtime.Gosched()
			continue
		}
		if spins&63 == 63 {
			if began.IsZero() {
				began = time.Now()
			} else if time.Since(began) > yieldAfter {
				runtime.Gosched()
			}
		}
	}
}

// help takes chunks until none are left, and counts those it ran as done
// once at the end: a count per chunk would pass the counter's cache line
// between the threads once a chunk.
func (t *task) help(p *Pool) {
	ran := int64(0)
	defer func() { t.done.Add(ran) }()
	for {
		c := t.next.Add(1) - 1
		if c >= t.total {
			return
		}
		lo := int(c) * t.size
		ran++ // done even if it faults, so that Run returns
		t.chunk(p, lo, min(lo+t.size, t.n))
	}
}

// chunk runs the job over [lo, hi), turning a memory fault into the pool's
// fault.
func (t *task) chunk(p *Pool, lo, hi int) {
	defer func() {
		if r := recover(); r != nil {
			p.noteFault(r)
		}
	}()
	t.job(lo, hi)
}

// noteFault keeps r as the pool's fault if it is a memory fault, and
// panics again with anything else (a bug, not a damaged file).
func (p *Pool) noteFault(r any) {
	f, ok := r.(interface{ Addr() uintptr })
	if !ok {
		panic(r)
	}
	err := fmt.Errorf("reading the model's weights faulted at %#x: the model file was truncated or replaced while in use", f.Addr())
	p.fault.CompareAndSwap(nil, &err)
}

// Fault is the memory fault a job hit, if any.
func (p *Pool) Fault() error {
	if e := p.fault.Load(); e != nil {
		return *e
	}
	return nil
}

func (p *Pool) work() {
	defer p.workers.Done()
	debug.SetPanicOnFault(true)
	var last uint64
	start := time.Now()
	for spins := 0; ; spins++ {
		if p.closed.Load() {
			return
		}
		t := p.cur.Load()
		if t.seq.Load() != last {
			t.inside.Add(1)
			if p.cur.Load() == t && t.seq.Load() != last {
				last = t.seq.Load()
				t.help(p)
			}
			t.inside.Add(-1)
			start, spins = time.Now(), 0
			continue
		}
		if spins&63 == 63 {
			// Let other goroutines have this thread: one queued behind
			// this (the engine's loop, having yielded to its receivers; a
			// handler the runtime woke from the network) runs on the
			// first thread that yields.
			runtime.Gosched()
		}
		if spins&255 == 255 && time.Since(start) > spinFor {
			p.mu.Lock()
			for p.cur.Load().seq.Load() == last && !p.closed.Load() {
				p.parked++
				p.cond.Wait()
				p.parked--
			}
			p.mu.Unlock()
			start, spins = time.Now(), 0
		}
	}
}
