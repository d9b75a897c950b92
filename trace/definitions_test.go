package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// Each format's bounds at their edges, as the formats and the Options
// say them.

// burstRows reads a BurstGPT CSV of the given rows under its header.
func burstRows(t *testing.T, rows ...string) ([]Entry, error) {
	t.Helper()
	return readAll(t, "Timestamp,Model,Request tokens,Response tokens\n"+strings.Join(rows, "\n")+"\n", Options{Format: FormatBurstGPT})
}

// TestBurstGPTBounds: timestamps from 0 to 1e9 s, fractions included;
// token counts up to record.MaxTokens; the fields read up to 1 KiB.
func TestBurstGPTBounds(t *testing.T) {
	got, err := burstRows(t, "0,m,3,4", "0.5,m,3,4", fmt.Sprintf("2,m,%d,%d", record.MaxTokens, record.MaxTokens), "1000000000,m,3,4")
	if err != nil || len(got) != 4 || got[2].Offset != 2*time.Second || got[2].OutputTokens != record.MaxTokens {
		t.Errorf("%+v, %v", got, err)
	}
	if _, err := burstRows(t, "-1,m,3,4"); err == nil || !strings.Contains(err.Error(), "want seconds from 0 to 1e+09") {
		t.Errorf("a negative timestamp: %v", err)
	}
	if _, err := burstRows(t, "1"+strings.Repeat(" ", 1023)+",m,3,4"); err != nil {
		t.Errorf("a timestamp field of 1 KiB: %v", err)
	}
	if _, err := burstRows(t, "1"+strings.Repeat(" ", 1024)+",m,3,4"); err == nil || !strings.Contains(err.Error(), "a field of 1025 bytes") {
		t.Errorf("a field of 1025 bytes: %v", err)
	}
}

// TestMooncakeBounds: output_length from 1; a line of hash ids past
// 64 KiB (a long prompt's blocks) is one entry.
func TestMooncakeBounds(t *testing.T) {
	if _, err := readAll(t, `{"timestamp": 0, "input_length": 5, "output_length": 0}`+"\n", Options{}); err == nil || !strings.Contains(err.Error(), "output_length 0") {
		t.Errorf("an output of 0 tokens: %v", err)
	}
	ids := make([]string, 2000) // their blocks within record.MaxTokens
	for i := range ids {
		ids[i] = fmt.Sprint(100000 + i)
	}
	long := fmt.Sprintf(`{"timestamp": 0, "input_length": %d, "output_length": 2, "hash_ids": [%s]}`, 512*len(ids), strings.Join(ids, ","+strings.Repeat(" ", 40)))
	if len(long) <= 64<<10 {
		t.Fatalf("a line of %d bytes", len(long))
	}
	got, err := readAll(t, long+"\n", Options{})
	if err != nil || len(got) != 1 || len(got[0].Blocks) != len(ids) {
		t.Errorf("a line of %d bytes: %d entries, %v", len(long), len(got), err)
	}
}

// TestOffsetsUpToTheBound: an entry 1e12 ms after the first is in the
// trace; the bound is on the distance from the first, not the stamp.
func TestOffsetsUpToTheBound(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 5, "output_length": 2}
{"timestamp": 1e12, "input_length": 5, "output_length": 2}
`
	got, err := readAll(t, in, Options{})
	if err != nil || len(got) != 2 || got[1].Offset != time.Duration(1e18) {
		t.Errorf("%+v, %v", got, err)
	}
}

// TestMooncakeToldByEitherField: a line naming timestamp or input_length
// is read as Mooncake's, so that one lacking the other is told what a
// Mooncake line needs.
func TestMooncakeToldByEitherField(t *testing.T) {
	for _, line := range []string{`{"timestamp": 0}`, `{"input_length": 5}`} {
		if _, err := readAll(t, line+"\n", Options{}); err == nil || !strings.Contains(err.Error(), "a Mooncake trace line needs timestamp") {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// TestRecordsReplayTheirBudgetUnlessAnswered: a record replays the
// tokens it was answered with; a failed one, or one answered with none,
// its budget.
func TestRecordsReplayTheirBudgetUnlessAnswered(t *testing.T) {
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	failed := &record.Record{V: record.SchemaVersion, T0: 1e9, Sent: 1, First: 2, Last: 2, Done: 3, PromptTokens: 4, OutputTokens: 3, MaxTokens: 50}
	failed.Fail(record.KindTimeout, "slow")
	w.Write(failed)
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e9, Sent: 2, First: 3, Last: 4, Done: 4, PromptTokens: 4, OutputTokens: 3, MaxTokens: 50})
	w.Flush()
	got, err := readAll(t, buf.String(), Options{})
	if err != nil || len(got) != 2 || got[0].OutputTokens != 50 || got[1].OutputTokens != 3 {
		t.Errorf("%+v, %v; want 50 for the failed, 3 for the answered", got, err)
	}
}

// TestTraceWithByteOrderMark: a byte-order mark before the first line
// does not hide the format.
func TestTraceWithByteOrderMark(t *testing.T) {
	got, err := readAll(t, "\uFEFF"+`{"timestamp": 0, "input_length": 5, "output_length": 2}`+"\n", Options{})
	if err != nil || len(got) != 1 {
		t.Errorf("%+v, %v", got, err)
	}
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e9, First: 1, Last: 1, Done: 2, PromptTokens: 3, OutputTokens: 1})
	w.Flush()
	if got, err := readAll(t, "\uFEFF"+buf.String(), Options{}); err != nil || len(got) != 1 {
		t.Errorf("records after a byte-order mark: %+v, %v", got, err)
	}
}

// TestWindowEndsBeforeTo: the window [From, To) holds an entry that
// arrived at From and not one that arrived at To.
func TestWindowEndsBeforeTo(t *testing.T) {
	in := `{"timestamp": 1000, "input_length": 5, "output_length": 2}
{"timestamp": 2000, "input_length": 5, "output_length": 2}
{"timestamp": 3000, "input_length": 5, "output_length": 2}
`
	got, err := readAll(t, in, Options{From: time.Second, To: 2 * time.Second})
	if err != nil || len(got) != 1 || got[0].Offset != 0 || got[0].Index != 1 {
		t.Errorf("window [1 s, 2 s): %+v, %v", got, err)
	}
}

// TestRecordsTraceEdgesOfOne: a record of one prompt token replays; a
// fingerprint without bytes gives no blocks; records over 1e12 ms
// (about 31 years) after the first are bad, not replayed.
func TestRecordsTraceEdgesOfOne(t *testing.T) {
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e9, First: 1, Last: 1, Done: 2, PromptTokens: 1, OutputTokens: 1,
		Prefix: &record.Prefix{Blocks: []uint64{1, 2}, BlockBytes: 100}})
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e9 + 15e17, First: 1, Last: 1, Done: 2, PromptTokens: 3, OutputTokens: 1})
	w.Flush()
	rd, err := NewReader(strings.NewReader(buf.String()), "r.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	for {
		var e Entry
		if rd.Next(&e) != nil {
			break
		}
		got = append(got, e)
	}
	if len(got) != 1 || got[0].InputTokens != 1 || len(got[0].Blocks) != 0 {
		t.Errorf("entries %+v, want the one-token record alone, without blocks", got)
	}
	if st := rd.Stats(); st.Bad != 1 {
		t.Errorf("stats %+v, want the far record bad", st)
	}
}

// TestOutputlessRecordsReplayNoOutput: a records file's embeddings
// request replays its inputs and asks for no tokens.
func TestOutputlessRecordsReplayNoOutput(t *testing.T) {
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e9, Sent: 1, Done: 5, PromptTokens: 12, Inputs: 3, API: "embeddings"})
	w.Flush()
	got, err := readAll(t, buf.String(), Options{})
	if err != nil || len(got) != 1 || got[0].OutputTokens != 0 || got[0].Inputs != 3 || got[0].InputTokens != 12 {
		t.Errorf("%+v, %v", got, err)
	}
}

// TestReaderRefusals: an unknown format and a failing read are named; an
// option's error says the option, its value and what it wants.
func TestReaderRefusals(t *testing.T) {
	if _, err := NewReader(strings.NewReader("{}\n"), "t", Options{Format: "parquet"}); err == nil || !strings.Contains(err.Error(), "parquet") {
		t.Errorf("format parquet: %v", err)
	}
	if _, err := NewReader(diskGone, "gone.jsonl", Options{}); err == nil || !strings.Contains(err.Error(), "reading gone.jsonl: disk gone") {
		t.Errorf("a failing read: %v", err)
	}
	e := &OptionError{Option: "speed", Value: "-1", Want: "a factor above 0"}
	if e.Error() != "trace speed -1: a factor above 0" {
		t.Errorf("%q", e.Error())
	}
}

var diskGone = iotest.ErrReader(errors.New("disk gone"))

// TestReplayShape: a replay is labelled "trace" and says what its reader
// gave out.
func TestReplayShape(t *testing.T) {
	rd, _ := NewReader(strings.NewReader(`{"timestamp": 0, "input_length": 5, "output_length": 2}`+"\n"), "t", Options{})
	r := NewReplay(rd, workload.Synthetic{})
	for range r.Arrivals(1) {
	}
	if r.String() != "trace" || r.Stats().Entries != 1 || r.Err() != nil {
		t.Errorf("%s, %+v, %v", r.String(), r.Stats(), r.Err())
	}
}

// TestAnalyzeSaysTheFirstBad: a records trace's bad line is counted and
// the first named; a trace of nothing replayable has no lengths.
func TestAnalyzeSaysTheFirstBad(t *testing.T) {
	rd, err := NewReader(strings.NewReader(`{"v":1,"seq":1,"sent":5,"done":1}`+"\n"), "bad.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(rd)
	if err != nil || a.Bad != 1 || !strings.Contains(a.FirstBad, "bad.jsonl:1") || a.Input != (Lengths{}) || a.Requests != 0 {
		t.Errorf("%+v, %v", a, err)
	}
}

// TestReplayHoldsOnlyWhatIsDue: a replay keeps an entry only from its
// arrival to its item: after every item, it holds none.
func TestReplayHoldsOnlyWhatIsDue(t *testing.T) {
	in := strings.Repeat(`{"timestamp": 0, "input_length": 5, "output_length": 2}`+"\n", 5)
	rd, _ := NewReader(strings.NewReader(in), "t", Options{})
	r := NewReplay(rd, workload.Synthetic{})
	seq := 0
	for range r.Arrivals(1) {
		r.Item(seq, false)
		seq++
	}
	if seq != 5 || len(r.pending) != 0 {
		t.Errorf("%d items, %d entries still held", seq, len(r.pending))
	}
}

// TestReplayProfileOfOneTurn: sessions of one turn are no sessions: a
// replay takes them.
func TestReplayProfileOfOneTurn(t *testing.T) {
	r := NewReplay(nil, workload.Synthetic{})
	if err := r.CheckProfile(load.Profile{Sessions: load.Sessions{Turns: 1}}); err != nil {
		t.Errorf("one turn: %v", err)
	}
	if err := r.CheckProfile(load.Profile{Sessions: load.Sessions{Turns: 2}}); err == nil {
		t.Error("two turns taken")
	}
}

// TestReplayedInputsShareThePrompt: an embeddings record's prompt tokens
// are shared among its inputs, rounded: 5 over 2 is 3 each.
func TestReplayedInputsShareThePrompt(t *testing.T) {
	r := NewReplay(nil, workload.Synthetic{})
	it := r.inputsOf(Entry{Index: 4, InputTokens: 5, Inputs: 2})
	if len(it.Inputs) != 2 || it.Inputs[1] != r.prompts.PromptOf(3, nil, 0, 4<<20|1) || it.Prompt != it.Inputs[0] {
		t.Errorf("inputs %q", it.Inputs)
	}
}

// TestReplayEndsAtABadEntry: a trace that cannot be read on ends the
// replay's arrivals, and Err says why; read ahead by the reorder window,
// a bad entry near the start ends it before its first request.
func TestReplayEndsAtABadEntry(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 5, "output_length": 2}` + "\n" + `{"timestamp": -5, "input_length": 5, "output_length": 2}` + "\n"
	rd, _ := NewReader(strings.NewReader(in), "bad.jsonl", Options{})
	r := NewReplay(rd, workload.Synthetic{})
	n := 0
	for range r.Arrivals(1) {
		n++
	}
	if n != 0 || r.Err() == nil || !strings.Contains(r.Err().Error(), "bad.jsonl:2") {
		t.Errorf("%d arrivals, error %v", n, r.Err())
	}
}

// TestFailingReadsNamed: a read that fails mid-trace, or at a CSV's
// header, names the trace.
func TestFailingReadsNamed(t *testing.T) {
	mooncake := io.MultiReader(strings.NewReader(`{"timestamp": 0, "input_length": 5, "output_length": 2}`+"\n"), diskGone)
	if _, err := readAllFrom(t, mooncake, "m.jsonl", Options{}); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("mooncake: %v", err)
	}
	burst := io.MultiReader(strings.NewReader("Timestamp,Request tokens,Response tokens\n1,2,3\n"), diskGone)
	if _, err := readAllFrom(t, burst, "b.csv", Options{}); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("burstgpt row: %v", err)
	}
	if _, err := NewReader(io.MultiReader(strings.NewReader("Timestamp,Request tok"), diskGone), "h.csv", Options{Format: FormatBurstGPT}); err == nil || !strings.Contains(err.Error(), "h.csv: reading the header") {
		t.Errorf("burstgpt header: %v", err)
	}
}

// TestDrawnEdges: the trace reader at edges a fresh mutant draw found
// unpinned.
func TestDrawnEdges(t *testing.T) {
	t.Run("prompts scaled below a token a block keep a block of one token", func(t *testing.T) {
		// 4,096 tokens in 8 blocks of 512, scaled by 0.0009: 4 tokens, and
		// blocks of round(0.46) = 0 tokens held to 1, so 4 blocks fit
		in := `{"timestamp": 0, "input_length": 4096, "output_length": 2, "hash_ids": [1, 2, 3, 4, 5, 6, 7, 8]}` + "\n"
		got, err := readAll(t, in, Options{InputScale: 0.0009})
		if err != nil || len(got) != 1 || got[0].InputTokens != 4 || got[0].BlockTokens != 1 || len(got[0].Blocks) != 4 {
			t.Errorf("%+v, %v", got, err)
		}
		// and clipped to 2 tokens, 2 blocks of one
		got, err = readAll(t, in, Options{InputScale: 0.0009, MaxInputTokens: 2})
		if err != nil || len(got) != 1 || got[0].InputTokens != 2 || len(got[0].Blocks) != 2 {
			t.Errorf("clipped: %+v, %v", got, err)
		}
	})
	t.Run("an arrival centuries away names its years of 365 days", func(t *testing.T) {
		rec := func(t0, at int64) string {
			return fmt.Sprintf(`{"v":3,"t0":%d,"scheduled":%d,"sent":%d,"done":%d,"first":%d,"last":%d,"prompt_tokens":3,"output_tokens":2}`+"\n", t0, at, at, at+9, at+1, at+2)
		}
		// 200.02 years of 365 days is 199.47 of 366
		apart := int64(200.02 * 365 * 24 * float64(time.Hour))
		rd, err := NewReader(strings.NewReader(rec(0, -1<<61)+rec(1<<62, -1<<61+apart-1<<62)), "t.jsonl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for e := (Entry{}); rd.Next(&e) == nil; {
		}
		if st := rd.Stats(); st.Bad != 1 || !strings.Contains(st.FirstBad.Error(), "arrives 200 years after") {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("a records trace's request that generates nothing asks no tokens", func(t *testing.T) {
		in := `{"v":3,"sent":1,"done":5,"prompt_tokens":8,"inputs":2,"max_tokens":5}` + "\n" +
			`{"v":3,"sent":1,"done":5,"prompt_tokens":8}` + "\n" // no output, no budget: nothing to replay
		rd, err := NewReader(strings.NewReader(in), "r.jsonl", Options{Format: FormatRecords})
		if err != nil {
			t.Fatal(err)
		}
		var got []Entry
		for e := (Entry{}); rd.Next(&e) == nil; {
			got = append(got, e)
		}
		if len(got) != 1 || got[0].OutputTokens != 0 || got[0].Inputs != 2 || rd.Stats().Skipped != 1 {
			t.Errorf("%+v, stats %+v", got, rd.Stats())
		}
	})
	t.Run("speed and input scale up to a million", func(t *testing.T) {
		for _, o := range []Options{{Speed: 1e6, InputScale: 1e6}} {
			if err := o.withDefaults().Check(); err != nil {
				t.Errorf("%+v: %v", o, err)
			}
		}
		for _, o := range []Options{{Speed: 1e6 * (1 + 1e-12)}, {InputScale: 1e6 * (1 + 1e-12)}} {
			if err := o.withDefaults().Check(); err == nil {
				t.Errorf("%+v taken", o)
			}
		}
	})
}

// TestSecondDrawEdges: a block a token (as many hash ids as input
// tokens) is a Mooncake line; a line of 1 MiB, its bound, is read, one
// byte more is refused by the bound named; a trace whose entries all
// arrive at once has no rate, not an infinite one.
func TestSecondDrawEdges(t *testing.T) {
	if got, err := readAll(t, `{"timestamp": 0, "input_length": 2, "output_length": 1, "hash_ids": [1, 2]}`+"\n", Options{}); err != nil || len(got) != 1 || len(got[0].Blocks) != 2 {
		t.Errorf("as many hash ids as tokens: %+v, %v", got, err)
	}
	line := func(n int) string {
		head := `{"timestamp": 0, "input_length": 5, "output_length": 1, "pad": "`
		return head + strings.Repeat("x", n-len(head)-2) + `"}`
	}
	if got, err := readAll(t, line(1<<20)+"\n", Options{Format: FormatMooncake}); err != nil || len(got) != 1 {
		t.Errorf("a line of 1 MiB: %d entries, %v", len(got), err)
	}
	for _, end := range []string{"\n", ""} {
		if _, err := readAll(t, line(1<<20+1)+end, Options{Format: FormatMooncake}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("a line over %d bytes", 1<<20)) {
			t.Errorf("a line past 1 MiB, ending %q: %v", end, err)
		}
	}
	rd, err := NewReader(strings.NewReader(`{"timestamp": 7, "input_length": 5, "output_length": 1}`+"\n"+`{"timestamp": 7, "input_length": 6, "output_length": 1}`+"\n"), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(rd)
	if err != nil || a.Requests != 2 || a.Rate != 0 {
		t.Errorf("two at once: %+v, %v", a, err)
	}
}

// TestThirdDrawEdges: a replay that is asked for a request it holds none
// for answers it and goes on; a request of audio is replayed with audio
// of its length; a window that ends before it begins, by a nanosecond,
// is refused; one gap has its mean; entries a nanosecond apart have
// their rate; a trace of nothing has no share of reuse.
func TestThirdDrawEdges(t *testing.T) {
	in := `{"v":3,"scheduled":0,"sent":0,"done":9,"prompt_tokens":4,"output_tokens":2,"audios":1,"audio_seconds":1.5}` + "\n" +
		`{"v":3,"scheduled":1,"sent":1,"first":2,"last":3,"done":9,"prompt_tokens":4,"output_tokens":2}` + "\n"
	rd, err := NewReader(strings.NewReader(in), "r.jsonl", Options{Format: FormatRecords})
	if err != nil {
		t.Fatal(err)
	}
	r := NewReplay(rd, workload.Synthetic{})
	seq := 0
	var items []workload.Item
	for range r.Arrivals(1) {
		if seq == 0 {
			r.Item(99, false) // none held for it
		}
		items = append(items, r.Item(seq, false))
		seq++
	}
	if len(items) != 2 || len(items[0].Media) != 1 || len(items[1].Media) != 0 {
		t.Fatalf("%d items, stats %+v", len(items), r.Stats())
	}
	if err := (Options{From: 5, To: 1}).Check(); err == nil {
		t.Error("a window from 5 ns to 1 ns taken")
	}
	rd, _ = NewReader(strings.NewReader(in), "r.jsonl", Options{Format: FormatRecords})
	a, err := Analyze(rd)
	if err != nil || a.GapMean != time.Nanosecond || math.Abs(a.Rate-1e9) > 1 {
		t.Errorf("two entries a nanosecond apart: gap %v, rate %v, %v", a.GapMean, a.Rate, err)
	}
	empty, _ := NewReader(strings.NewReader(""), "e.jsonl", Options{Format: FormatMooncake})
	if a, err := Analyze(empty); err != nil || a.ReusedShare != 0 || math.IsNaN(a.ReusedShare) {
		t.Errorf("an empty trace: share %v, %v", a.ReusedShare, err)
	}
}
