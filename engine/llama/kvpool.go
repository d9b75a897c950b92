package llama

import (
	"sync"
	"unsafe"
)

// kvElem is what a KV cache holds: float32 values, or F16 ones
// (Model.SetKVType).
type kvElem interface{ float32 | uint16 }

// sizeOf is the bytes of one T.
func sizeOf[T kvElem]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// kvPool keeps the caches of released sequences for new ones. A new
// cache's pages are faulted in by the kernel as the sequence first writes
// them: a served batch of 16 on the 110m model allocates 180 MB of cache
// a round of requests, and faulting it in was a sixth of the server's
// step time (the KV appends, in a CPU profile under `tpsbench run`).
// Reused buffers were touched already.
type kvPool[T kvElem] struct {
	mu    sync.Mutex
	free  [][]T
	bytes int
}

// kvPoolBytes bounds what the pool keeps: past it, released caches go to
// the garbage collector.
const kvPoolBytes = 1 << 30

// get returns a buffer of length 0 and capacity at least n values: a
// released one if one fits without holding more than twice that (the
// cache's reported size is its capacity), else a new one.
func (p *kvPool[T]) get(n int) []T {
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		if c := cap(b); c >= n && c <= 2*n && (best < 0 || c < cap(p.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := p.free[best]
		last := len(p.free) - 1
		p.free[best], p.free[last] = p.free[last], nil
		p.free = p.free[:last]
		p.bytes -= sizeOf[T]() * cap(b)
		p.mu.Unlock()
		return b[:0]
	}
	p.mu.Unlock()
	return make([]T, 0, n)
}

// put keeps b for reuse, within the pool's bound.
func (p *kvPool[T]) put(b []T) {
	if cap(b) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	size := sizeOf[T]() * cap(b)
	if p.bytes+size > kvPoolBytes {
		return
	}
	p.free = append(p.free, b[:0])
	p.bytes += size
}

// Release gives the sequence's cache back to the model, for the sequences
// made after it; the sequence must not be used again (a step with it is
// an error).
func (s *Sequence) Release() {
	for l := range s.k {
		s.m.kv.put(s.k[l])
		s.m.kv.put(s.v[l])
	}
	for l := range s.hk {
		s.m.kvHalf16.put(s.hk[l])
		s.m.kvHalf16.put(s.hv[l])
	}
	s.k, s.v, s.hk, s.hv = nil, nil, nil, nil
}
