package record

import (
	"testing"
	"time"
)

// TestITLs: k tokens arriving g after the last arrival that carried
// tokens give k samples of g/k, worked by hand from docs/metrics.md; the
// first token arrival gives none (TTFT covers it), and an arrival without
// tokens is neither a sample nor the start of the next gap, so the
// samples add up to last token - first token. The record starts away
// from zero, as records of a real run do.
func TestITLs(t *testing.T) {
	type sample struct {
		d time.Duration
		n int
	}
	ms := int64(time.Millisecond)
	for _, tc := range []struct {
		name   string
		chunks []Chunk
		want   []sample
	}{
		{"one token a chunk", []Chunk{{At: 10 * ms, Tokens: 1}, {At: 14 * ms, Tokens: 1}, {At: 20 * ms, Tokens: 1}},
			[]sample{{4 * time.Millisecond, 1}, {6 * time.Millisecond, 1}}},
		{"a chunk of three", []Chunk{{At: 10 * ms, Tokens: 2}, {At: 19 * ms, Tokens: 3}},
			[]sample{{3 * time.Millisecond, 3}}},
		{"two chunks in one read", []Chunk{{At: 10 * ms, Tokens: 1}, {At: 18 * ms, Tokens: 1}, {At: 18 * ms, Tokens: 1}},
			[]sample{{4 * time.Millisecond, 2}}},
		{"a chunk without tokens between", []Chunk{{At: 10 * ms, Tokens: 1}, {At: 12 * ms, Tokens: 0}, {At: 16 * ms, Tokens: 2}},
			[]sample{{3 * time.Millisecond, 2}}},
		{"a chunk without tokens first", []Chunk{{At: 5 * ms, Tokens: 0}, {At: 10 * ms, Tokens: 1}, {At: 13 * ms, Tokens: 1}},
			[]sample{{3 * time.Millisecond, 1}}},
		{"one arrival", []Chunk{{At: 10 * ms, Tokens: 4}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Record{T0: 1_700_000_000 * int64(time.Second), Sent: 5 * int64(time.Second), Chunks: tc.chunks}
			var got []sample
			r.ITLs(func(d time.Duration, n int) { got = append(got, sample{d, n}) })
			if len(got) != len(tc.want) {
				t.Fatalf("samples %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("samples %v, want %v", got, tc.want)
				}
			}
		})
	}
}
