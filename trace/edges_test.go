package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// TestReaderAtItsBounds: each option and field at the edge of what it
// accepts reads, one past it is refused.
func TestReaderAtItsBounds(t *testing.T) {
	good := `{"timestamp": 0, "input_length": 5, "output_length": 2, "hash_ids": [0]}` + "\n"
	got, err := readAll(t, good, Options{})
	if err != nil || len(got) != 1 || !slices.Equal(got[0].Blocks, []uint64{0}) {
		t.Errorf("block id 0: %+v, %v", got, err)
	}
	for _, c := range []struct {
		opts Options
		ok   bool
	}{
		{Options{MaxInputTokens: 1}, true},
		{Options{MaxInputTokens: workload.MaxPromptTokens}, true},
		{Options{InputScale: 1e6}, true},
		{Options{InputScale: 1.000001e6}, false},
		{Options{InputScale: -0.5}, false},
	} {
		if _, err := NewReader(strings.NewReader(good), "t", c.opts); (err == nil) != c.ok {
			t.Errorf("options %+v: error %v, want accepted %v", c.opts, err, c.ok)
		}
	}
	got, _ = readAll(t, good, Options{MaxInputTokens: 1})
	if len(got) != 1 || got[0].InputTokens != 1 || len(got[0].Blocks) != 0 {
		t.Errorf("at a bound of 1 token: %+v", got)
	}
}

// TestRecordsTraceEdges: a prefix of a single one-byte block is its
// prompt's one block; a records file a killed writer cut short gives its
// whole lines and counts the cut one once, however often it is asked.
func TestRecordsTraceEdges(t *testing.T) {
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e18, First: 1, Last: 2, Done: 2, PromptTokens: 40, OutputTokens: 4,
		Prefix: &record.Prefix{Blocks: []uint64{3}, BlockBytes: 1, Bytes: 1}})
	w.Flush()
	buf.WriteString(`{"v":3,"t0":1,"sent":5,"done":9,"prompt_to`)
	rd, err := NewReader(&buf, "r.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var e Entry
	if err := rd.Next(&e); err != nil || !slices.Equal(e.Blocks, []uint64{3}) || e.BlockTokens != 40 {
		t.Fatalf("entry %+v, %v: want block 3 of 40 tokens", e, err)
	}
	for range 3 {
		if err := rd.Next(&e); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last whole line: %v", err)
		}
	}
	if st := rd.Stats(); st.Skipped != 1 {
		t.Errorf("stats %+v: want the cut line skipped once", st)
	}
}

// entryList gives fixed entries: the replay's own rules, without a file.
type entryList struct{ entries []Entry }

func (l *entryList) Next(e *Entry) error {
	if len(l.entries) == 0 {
		return io.EOF
	}
	*e, l.entries = l.entries[0], l.entries[1:]
	return nil
}

func (l *entryList) Stats() Stats { return Stats{} }

// TestReplayOutputlessAndAudio: a request of inputs replays as that many
// inputs sharing its tokens (a word each at least); one of audio, as
// speech-like audio of its length, even under a second; a kept request
// that no longer parses or holds nothing to send, as words of its length.
func TestReplayOutputlessAndAudio(t *testing.T) {
	r := NewReplay(&entryList{[]Entry{
		{Index: 0, InputTokens: 30, Inputs: 3},
		{Index: 1, InputTokens: 1, Inputs: 4},
		{Index: 2, InputTokens: 1, OutputTokens: 5, AudioSeconds: 0.5},
		{Index: 3, InputTokens: 6, OutputTokens: 2, Request: json.RawMessage(`[{"role":`)},
		{Index: 4, InputTokens: 1, OutputTokens: 5, AudioSeconds: 1e12},
		{Index: 5, InputTokens: 7, OutputTokens: 2, Request: json.RawMessage(`[]`)},
	}}, workload.Synthetic{Seed: 2})
	var items []workload.Item
	for i := 0; ; i++ {
		if _, ok := r.next(); !ok {
			break
		}
		items = append(items, r.Item(i, false))
	}
	if len(items) != 6 {
		t.Fatalf("%d items, want 6", len(items))
	}
	words := func(s string) int { return len(strings.Fields(s)) }
	for i, want := range [][]int{{10, 10, 10}, {1, 1, 1, 1}} {
		var got []int
		for _, in := range items[i].Inputs {
			got = append(got, words(in))
		}
		if !slices.Equal(got, want) || items[i].Prompt != items[i].Inputs[0] {
			t.Errorf("item %d: inputs of %v words, want %v; prompt %q", i, got, want, items[i].Prompt)
		}
	}
	if m := items[2].Media; len(m) != 1 || m[0].MIME != "audio/wav" || m[0].Seconds != 0.5 || items[2].MaxTokens != 5 {
		t.Errorf("half a second of audio: %+v", m)
	}
	if it := items[3]; words(it.Prompt) != 6 || len(it.Messages) != 0 {
		t.Errorf("a kept request cut short: %+v, want 6 words", it)
	}
	if it := items[5]; words(it.Prompt) != 7 || len(it.Messages) != 0 {
		t.Errorf("a kept request of no messages: %+v, want 7 words", it)
	}
	if len(items[4].Media) != 0 {
		t.Errorf("audio past the longest made: %d clips", len(items[4].Media))
	}
}
