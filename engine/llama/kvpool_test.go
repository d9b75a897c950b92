package llama

import "testing"

func TestKVPoolReusesFittingBuffers(t *testing.T) {
	var p kvPool[float32]
	a := p.get(100)
	a = append(a, 1, 2, 3)
	p.put(a)
	if b := p.get(60); cap(b) != cap(a) || len(b) != 0 || &b[:1][0] != &a[0] {
		t.Fatalf("get(60) after put of cap %d: cap %d len %d, not the released buffer", cap(a), cap(b), len(b))
	}
	p.put(a)
	if b := p.get(40); &b[:1][0] == &a[0] {
		t.Fatal("a buffer more than twice the need was handed out")
	}
	if b := p.get(101); cap(b) < 101 || &b[:1][0] == &a[0] {
		t.Fatal("a buffer smaller than the need was handed out")
	}
	if p.bytes != 4*cap(a) {
		t.Fatalf("pool holds %d bytes, want %d", p.bytes, 4*cap(a))
	}
	p.bytes = kvPoolBytes        // as if full (a real gigabyte took seconds to allocate)
	p.put(make([]float32, 0, 1)) // past the bound: dropped
	if len(p.free) != 1 {
		t.Fatalf("pool keeps %d buffers past its bound, want 1", len(p.free))
	}
	var h kvPool[uint16] // an F16 cache's: two bytes a value
	h.put(make([]uint16, 0, 10))
	if h.bytes != 20 {
		t.Fatalf("an F16 pool holds %d bytes for 10 values, want 20", h.bytes)
	}
}
