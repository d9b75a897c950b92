package load

import (
	"context"
	"sync"
	"time"
)

// A wave holds a closed loop's first requests, all due at once, until
// every user has its first request ready to go (a body built, a
// connection in hand), and then sends them one after another from one
// goroutine: the wave is due when the last is ready, and its sends take
// what the writes alone take. Sent as each was made ready, 2,048
// requests went out over 70 ms of one core where their writes take 16:
// each waited for the bodies, records and goroutine starts of those
// before it.
type wave struct {
	mu      sync.Mutex
	waiting int     // users whose first request is neither ready nor done
	writes  []*held // the requests ready, in the order they were
	due     time.Time
	sent    chan struct{} // closed once every write was made
}

// held is one request in a wave.
type held struct {
	ctx       context.Context
	write     func()
	abandoned bool // its request ended while it waited; not to be sent
	written   bool
}

// newWave is a wave of users; its list of writes grows as they come, not
// sized by a concurrency given (a library caller's is not bounded).
func newWave(users int) *wave {
	return &wave{waiting: users, sent: make(chan struct{})}
}

// firstWave is the wave a phase of users starts with, or nil where their
// first requests are not all due at once, where a wait for the wave
// would count in a cancel's timer (it runs from before the send), or
// where a cap on requests in prefill lets only some go at once (the rest
// would wait for the wave, and it for them).
func (p Profile) firstWave(users int, warm bool) *wave {
	if warm || p.StartsAtOnce() == 0 || p.Cancel.Share != 0 || p.MaxPrefill > 0 {
		return nil
	}
	return newWave(users)
}

// seat is one user's place in a wave: it holds the user's first request
// or, when that request never came to its send, leaves. A nil seat (no
// wave) holds nothing.
type seat struct {
	w    *wave
	once sync.Once
}

// seat gives a user its place in w, nil when w is.
func (w *wave) seat() *seat {
	if w == nil {
		return nil
	}
	return &seat{w: w}
}

// hold adds the request write sends and waits until it was sent, or until
// ctx ends (ok false, write not called). due is when the wave was, or
// zero for a request not in it. A nil write is a request that goes by
// itself (an upload, a dial: a send that may wait on the server): the
// user leaves the wave.
func (s *seat) hold(ctx context.Context, write func()) (due time.Time, ok bool) {
	if write == nil {
		s.leave()
		return time.Time{}, false
	}
	h := &held{ctx: ctx, write: write}
	first := false
	s.once.Do(func() {
		first = true
		s.w.mu.Lock()
		s.w.writes = append(s.w.writes, h)
		s.w.readied()
	})
	if !first {
		// the user left the wave already: its request goes as it is, due
		// when it was scheduled
		write()
		return time.Time{}, true
	}
	select {
	case <-s.w.sent:
		return s.w.due, h.written
	case <-ctx.Done():
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	select {
	case <-s.w.sent:
		return s.w.due, h.written // the wave went as ctx ended
	default:
		h.abandoned = true
		return time.Time{}, false
	}
}

// leave counts the user's first request as done without a send (it
// failed before one, or there was none to make).
func (s *seat) leave() {
	if s == nil {
		return
	}
	s.once.Do(func() {
		s.w.mu.Lock()
		s.w.readied()
	})
}

// readied counts one more user ready, with w.mu held, which it releases;
// the last sends the wave.
func (w *wave) readied() {
	w.waiting--
	if w.waiting > 0 {
		w.mu.Unlock()
		return
	}
	w.due = time.Now()
	for _, h := range w.writes {
		if !h.abandoned && h.ctx.Err() == nil {
			h.write()
			h.written = true
		}
	}
	close(w.sent)
	w.mu.Unlock()
}
