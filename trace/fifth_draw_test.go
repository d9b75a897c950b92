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
