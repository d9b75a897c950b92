package trace

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestTraceBoundsExactly: a timestamp at the bound reads and one past it
// is refused, in Mooncake's milliseconds and BurstGPT's seconds; a window
// that starts before 0 is refused; a context of one token leaves one of
// prompt and one of output.
func TestTraceBoundsExactly(t *testing.T) {
	if got, err := readAll(t, `{"timestamp": 1e12, "input_length": 5, "output_length": 2}`+"\n", Options{}); err != nil || len(got) != 1 {
		t.Errorf("a Mooncake timestamp of 1e12 ms: %v, %v", got, err)
	}
	rd, err := NewReader(strings.NewReader("Timestamp,Request tokens,Response tokens\n1000000001,2,3\n"), "burst.csv", Options{Format: FormatBurstGPT})
	if err == nil {
		var e Entry
		err = rd.Next(&e)
	}
	if err == nil || !strings.Contains(err.Error(), "burst.csv:2: timestamp") {
		t.Errorf("a BurstGPT timestamp past 1e9 s: %v", err)
	}
	if _, err := NewReader(strings.NewReader(`{"timestamp": 0, "input_length": 5, "output_length": 2}`+"\n"), "t", Options{From: -1}); err == nil {
		t.Error("a window from -1 ns accepted")
	}
	got, _ := readAll(t, `{"timestamp": 0, "input_length": 5, "output_length": 2}`+"\n", Options{Context: 1})
	if len(got) != 1 || got[0].InputTokens != 1 || got[0].OutputTokens != 1 {
		t.Errorf("a context of 1: %+v", got)
	}
}

// TestRecordsTraceCounts: a record that completed with one token replays
// one, not its budget; prefix blocks that round to more tokens than the
// prompt holds are cut to the whole blocks it holds (5 tokens, 3 blocks
// of 100 of its 300 bytes: blocks of 2 tokens, 2 of them fit).
func TestRecordsTraceCounts(t *testing.T) {
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e18, First: 1, Last: 1, Done: 2, PromptTokens: 9, OutputTokens: 1, MaxTokens: 50})
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e18, Scheduled: 5, Sent: 5, First: 6, Last: 7, Done: 7, PromptTokens: 5, OutputTokens: 2,
		Prefix: &record.Prefix{Blocks: []uint64{1, 2, 3}, BlockBytes: 100, Bytes: 300}})
	w.Flush()
	got, err := readAll(t, buf.String(), Options{})
	if err != nil || len(got) != 2 {
		t.Fatalf("%+v, %v", got, err)
	}
	if got[0].OutputTokens != 1 {
		t.Errorf("a record of one token replays %d", got[0].OutputTokens)
	}
	if got[1].BlockTokens != 2 || len(got[1].Blocks) != 2 {
		t.Errorf("blocks %v of %d tokens; want 2 of 2", got[1].Blocks, got[1].BlockTokens)
	}
}
