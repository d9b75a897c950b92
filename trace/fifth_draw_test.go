package trace

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestMooncakeOutputAtTheBound: an output_length of record.MaxTokens is a
// length a record holds, so the line is read; one more is refused.
func TestMooncakeOutputAtTheBound(t *testing.T) {
	for n, ok := range map[int]bool{record.MaxTokens: true, record.MaxTokens + 1: false} {
		got, err := readAll(t, fmt.Sprintf(`{"timestamp": 0, "input_length": 5, "output_length": %d}`+"\n", n), Options{})
		if ok && (err != nil || len(got) != 1 || got[0].OutputTokens != n) {
			t.Errorf("output_length %d: %+v, %v", n, got, err)
		}
		if !ok && err == nil {
			t.Errorf("output_length %d read", n)
		}
	}
}

// failingEntries gives two entries, then fails as a broken file would.
type failingEntries struct{ given int }

var errBroken = errors.New("the disk went away")

func (f *failingEntries) Next(e *Entry) error {
	if f.given == 2 {
		return errBroken
	}
	f.given++
	*e = Entry{InputTokens: 5, OutputTokens: 2}
	return nil
}

func (f *failingEntries) Stats() Stats { return Stats{Entries: f.given, Skipped: 1} }

// TestAnalysisOfATraceThatFails: an analysis that stops at a reader's
// error still says what the reader counted before it.
func TestAnalysisOfATraceThatFails(t *testing.T) {
	a, err := Analyze(&failingEntries{})
	if !errors.Is(err, errBroken) || a.Requests != 2 || a.Skipped != 1 {
		t.Errorf("requests %d, skipped %d, error %v", a.Requests, a.Skipped, err)
	}
}

// TestPrefixCacheBound: past its bound the cache remembers no new block,
// so reuse of those blocks goes uncounted: with room for two, a prompt of
// blocks 1, 2, 3 seen again reuses the first two blocks' tokens only.
func TestPrefixCacheBound(t *testing.T) {
	c := newPrefixCache()
	c.max = 2
	e := Entry{InputTokens: 30, BlockTokens: 10, Blocks: []uint64{1, 2, 3}}
	if got := c.reuse(&e); got != 0 {
		t.Errorf("first prompt reused %d tokens", got)
	}
	if got := c.reuse(&e); got != 20 {
		t.Errorf("the prompt again reused %d tokens, want the 20 of the two blocks remembered", got)
	}
}

// TestInputScaleKeepsNoBlocks: scaling the prompts of a trace without
// prefix blocks (BurstGPT's) gives them no block size.
func TestInputScaleKeepsNoBlocks(t *testing.T) {
	got, err := readAll(t, "Timestamp,Model,Request tokens,Response tokens\n0,m,5,2\n", Options{Format: FormatBurstGPT, InputScale: 2})
	if err != nil || len(got) != 1 {
		t.Fatalf("%+v, %v", got, err)
	}
	if got[0].InputTokens != 10 || got[0].BlockTokens != 0 || len(got[0].Blocks) != 0 {
		t.Errorf("%+v, want 10 input tokens and no blocks", got[0])
	}
}
