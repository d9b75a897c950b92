package llama

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// Sequence is one generation's state: its position and KV cache.
type Sequence struct {
	m   *Model
	pos int
	// k[l] and v[l] hold every cached position's keys and values of layer l,
	// position-major; they grow as the sequence does, up to the context.
	// An F16 cache (Model.SetKVType) holds them in hk and hv instead.
	k, v   [][]float32
	hk, hv [][]uint16
	one    [1]Entry // Forward's batch, kept here so that it need not be allocated
}

// SetKVType sets what the KV cache holds: gguf.F32 (the default) or
// gguf.F16, llama.cpp's default, in half the memory, its attention
// computed as llama.cpp's is over such a cache (kvhalf.go). It must come
// before the first sequence is made.
func (m *Model) SetKVType(t gguf.TensorType) error {
	if t != gguf.F32 && t != gguf.F16 {
		return fmt.Errorf("a KV cache of %s: want F32 or F16", t)
	}
	if m.sequenced.Load() {
		return errors.New("the KV cache type must be set before the first sequence is made")
	}
	m.kvType, m.kvHalf = t, t == gguf.F16
	return nil
}

// KVType is what the KV cache holds (SetKVType).
func (m *Model) KVType() gguf.TensorType { return m.kvType }

// KVBytes is the memory one cached position takes over all layers (keys
// and values).
func (m *Model) KVBytes() int {
	elem := 4
	if m.kvHalf {
		elem = 2
	}
	return 2 * m.Layers * m.KVDim() * elem
}

// NewSequence starts an empty sequence, with cache room reserved for
// capacity positions (it grows past that, up to the context length).
func (m *Model) NewSequence(capacity int) *Sequence {
	m.sequenced.Store(true)
	capacity = min(max(capacity, 1), m.Context)
	s := &Sequence{m: m}
	n := capacity * m.KVDim()
	if m.kvHalf {
		s.hk, s.hv = make([][]uint16, m.Layers), make([][]uint16, m.Layers)
		for l := range s.hk {
			s.hk[l], s.hv[l] = m.kvHalf16.get(n), m.kvHalf16.get(n)
		}
		return s
	}
	s.k, s.v = make([][]float32, m.Layers), make([][]float32, m.Layers)
	for l := range s.k {
		s.k[l], s.v[l] = m.kv.get(n), m.kv.get(n)
	}
	return s
}

// released reports whether Release gave the cache back.
func (s *Sequence) released() bool { return s.k == nil && s.hk == nil }

// extend makes room for one more position in layer l's cache and
// returns where its keys and values go.
func (s *Sequence) extend(l, kvDim int) int {
	if s.hk != nil {
		return growRow(s.hk, s.hv, l, kvDim)
	}
	return growRow(s.k, s.v, l, kvDim)
}

func growRow[T kvElem](k, v [][]T, l, n int) int {
	at := len(k[l])
	k[l] = slices.Grow(k[l], n)[:at+n]
	v[l] = slices.Grow(v[l], n)[:at+n]
	return at
}

// store writes one position's keys and values into layer l's cache at
// at (a place extend claimed).
func (s *Sequence) store(l, at int, k, v []float32) {
	n := len(k)
	if s.hk != nil {
		mapRow(s.hk[l], at, n)
		mapRow(s.hv[l], at, n)
		halveRow(s.hk[l][at:at+n], k)
		halveRow(s.hv[l][at:at+n], v)
		return
	}
	mapRow(s.k[l], at, n)
	mapRow(s.v[l], at, n)
	copy(s.k[l][at:at+n], k)
	copy(s.v[l][at:at+n], v)
}

// mapChunk is the span of a cache whose pages mapRow has the kernel map
// at once.
const mapChunk = 64 << 10 // bytes

// mapRow maps the pages of the chunk of cache buf that the row [at,
// at+n) is the first to write into, before it is written. A new cache's
// pages are otherwise faulted in one by one as its rows reach them, each
// a trap into the kernel: under run --concurrency 32 against a new
// server (15m), 24,000 faults in a 6 s run took 0.4 s of system time.
// Mapped a chunk at a time, 1 MB of rows written to fresh pages took 1.4
// ms against 2.5 here. The chunks are mapped as the sequence reaches
// them, so a cache reserved for a long answer that ends early holds no
// more memory than before.
func mapRow[T kvElem](buf []T, at, n int) {
	chunk := max(mapChunk/sizeOf[T](), n) // a row reaches into one new chunk at most
	first, last := at/chunk, (at+n-1)/chunk
	if at != 0 && first == last {
		return
	}
	start := last * chunk
	buf = buf[:cap(buf)]
	prefault(buf[start:min(len(buf), start+chunk)])
}

// Pos is the number of tokens the sequence holds.
func (s *Sequence) Pos() int { return s.pos }

// CacheBytes is the memory the sequence's KV cache holds.
func (s *Sequence) CacheBytes() int {
	n := 0
	for l := range s.k {
		n += 4 * (cap(s.k[l]) + cap(s.v[l]))
	}
	for l := range s.hk {
		n += 2 * (cap(s.hk[l]) + cap(s.hv[l]))
	}
	return n
}

// ExportKV appends positions [from, to) of the cache to dst, layer by
// layer, keys then values, as the cache holds them (KVBytes a position):
// what a prefix cache keeps of a block.
func (s *Sequence) ExportKV(dst []byte, from, to int) []byte {
	kv := s.m.KVDim()
	if s.hk != nil {
		return exportRows(dst, s.hk, s.hv, from*kv, to*kv)
	}
	return exportRows(dst, s.k, s.v, from*kv, to*kv)
}

func exportRows[T kvElem](dst []byte, k, v [][]T, from, to int) []byte {
	for l := range k {
		dst = append(dst, asBytes(k[l][from:to])...)
		dst = append(dst, asBytes(v[l][from:to])...)
	}
	return dst
}

// ImportKV appends n positions exported by ExportKV (of a model with the
// same KV type) to the sequence, as if their tokens had been fed: a
// prefix cache hit skips their prefill.
func (s *Sequence) ImportKV(data []byte, n int) error {
	if s.released() {
		return errors.New("importing into a released sequence")
	}
	if len(data) != n*s.m.KVBytes() {
		return fmt.Errorf("importing %d positions: %d bytes, want %d", n, len(data), n*s.m.KVBytes())
	}
	if s.pos+n > s.m.Context {
		return fmt.Errorf("importing %d positions at %d overflows the context of %d", n, s.pos, s.m.Context)
	}
	if s.hk != nil {
		importRows(s.hk, s.hv, data, n*s.m.KVDim())
	} else {
		importRows(s.k, s.v, data, n*s.m.KVDim())
	}
	s.pos += n
	return nil
}

func importRows[T kvElem](k, v [][]T, data []byte, n int) {
	size := n * sizeOf[T]()
	for l := range k {
		off := 2 * l * size
		k[l] = append(k[l], fromBytes[T](data[off:off+size])...)
		v[l] = append(v[l], fromBytes[T](data[off+size:off+2*size])...)
	}
}

// asBytes is x's memory as bytes: an export is the cache's own
// representation, read back by the same process (the prefix cache).
func asBytes[T kvElem](x []T) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), len(x)*sizeOf[T]())
}

// fromBytes is a copy of b's values as Ts.
func fromBytes[T kvElem](b []byte) []T {
	out := make([]T, len(b)/sizeOf[T]())
	copy(asBytes(out), b)
	return out
}
