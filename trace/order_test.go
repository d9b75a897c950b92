package trace

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestReorderRules: the trace reader's ordering, pinned. Entries of equal
// time keep their order in the file; one that comes after more entries
// than the reorder window holds, earlier than them, is given out at once
// at the last offset given (never before it) and counted late; a file that
// begins with a byte-order mark reads; a line without one of the fields
// names its line.
func TestReorderRules(t *testing.T) {
	var b strings.Builder
	b.WriteString("\uFEFF")
	fmt.Fprintf(&b, `{"timestamp": 0, "input_length": 7, "output_length": 1}`+"\n")
	fmt.Fprintf(&b, `{"timestamp": 0, "input_length": 8, "output_length": 1}`+"\n")
	for i := 1; i <= reorderWindow+10; i++ {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 1, "output_length": 1}`+"\n", i)
	}
	fmt.Fprintf(&b, `{"timestamp": 3, "input_length": 9, "output_length": 1}`+"\n") // far too late
	rd, err := NewReader(strings.NewReader(b.String()), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	for {
		var e Entry
		if err := rd.Next(&e); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	if entries[0].InputTokens != 7 || entries[1].InputTokens != 8 {
		t.Errorf("equal times out of the file's order: %d then %d", entries[0].InputTokens, entries[1].InputTokens)
	}
	last := entries[len(entries)-1]
	for i := 1; i < len(entries); i++ {
		if entries[i].Offset < entries[i-1].Offset {
			t.Fatalf("entry %d at %v after one at %v", i, entries[i].Offset, entries[i-1].Offset)
		}
	}
	// the late entry (3 ms) is given when it is read, once the window has
	// given out the entries before it: at the offset of the last of those
	// (the order check above), not at its own
	found := false
	for i, e := range entries {
		if e.InputTokens == 9 {
			found = true
			if e.Offset == 3*time.Millisecond || e.Offset != entries[i-1].Offset {
				t.Errorf("the late entry at %v, the one before it at %v", e.Offset, entries[i-1].Offset)
			}
			// the window holds reorderWindow entries: when the late one is
			// read, reorderWindow-1 of the file's earlier entries wait, so
			// all the others have been given out before it
			if before := reorderWindow + 12 - (reorderWindow - 1); i != before {
				t.Errorf("the late entry given after %d entries, want %d", i, before)
			}
		}
	}
	if !found || rd.Stats().Late != 1 {
		t.Errorf("late entry given %v, late %d; the last %+v", found, rd.Stats().Late, last)
	}

	_, err = NewReader(strings.NewReader(`{"timestamp": 0, "input_length": 7}`+"\n"), "m.jsonl", Options{})
	if err == nil {
		rd2, _ := NewReader(strings.NewReader(`{"timestamp": 0, "input_length": 7}`+"\n"), "m.jsonl", Options{})
		var e Entry
		err = rd2.Next(&e)
	}
	if err == nil || !strings.Contains(err.Error(), "m.jsonl:1") || !strings.Contains(err.Error(), "output_length") {
		t.Errorf("a line without output_length: %v", err)
	}
}
