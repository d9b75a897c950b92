package llama

import (
	"runtime"
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
	tasks   [2]task
	cur     atomic.Pointer[task]
	seq     uint64

	mu      sync.Mutex
	cond    *sync.Cond
	parked  int
	closed  atomic.Bool
	workers sync.WaitGroup
}

type task struct {
	seq    atomic.Uint64
	job    func(lo, hi int)
	n      int
	size   int
	total  int64
	next   atomic.Int64
	done   atomic.Int64
	inside atomic.Int32 // workers that may be reading this task's fields
}

// spinFor is how long an idle worker spins before parking.
const spinFor = 200 * time.Microsecond

// NewPool starts threads-1 workers (the caller's goroutine is the other).
func NewPool(threads int) *Pool {
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	p := &Pool{threads: threads}
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
		job(0, n)
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
	t.help()
	for t.done.Load() < t.total {
		runtime.Gosched()
	}
	t.job = nil
}

// help takes chunks until none are left.
func (t *task) help() {
	for {
		c := t.next.Add(1) - 1
		if c >= t.total {
			return
		}
		lo := int(c) * t.size
		t.job(lo, min(lo+t.size, t.n))
		t.done.Add(1)
	}
}

func (p *Pool) work() {
	defer p.workers.Done()
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
				t.help()
			}
			t.inside.Add(-1)
			start, spins = time.Now(), 0
			continue
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
