package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

func readAll(t testing.TB, in string, opts Options) ([]Entry, error) {
	t.Helper()
	return readAllFrom(t, strings.NewReader(in), "t.jsonl", opts)
}

// readAllFrom reads every entry of the trace r, named name.
func readAllFrom(t testing.TB, r io.Reader, name string, opts Options) ([]Entry, error) {
	t.Helper()
	rd, err := NewReader(r, name, opts)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for {
		var e Entry
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

const mooncakeSample = `{"timestamp": 0, "input_length": 655, "output_length": 52, "hash_ids": [46, 47]}
{"timestamp": 10535, "input_length": 672, "output_length": 26, "hash_ids": [46, 47]}

{"timestamp": 27482.5, "input_length": 655, "output_length": 52, "hash_ids": [46, 48]}
`

func TestMooncake(t *testing.T) {
	got, err := readAll(t, mooncakeSample, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Index: 0, Line: 1, Offset: 0, InputTokens: 655, OutputTokens: 52, Blocks: []uint64{46, 47}, BlockTokens: 512},
		{Index: 1, Line: 2, Offset: 10535 * time.Millisecond, InputTokens: 672, OutputTokens: 26, Blocks: []uint64{46, 47}, BlockTokens: 512},
		{Index: 2, Line: 4, Offset: 27482500 * time.Microsecond, InputTokens: 655, OutputTokens: 52, Blocks: []uint64{46, 48}, BlockTokens: 512},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := got[i], want[i]; g.Index != w.Index || g.Line != w.Line || g.Offset != w.Offset || g.InputTokens != w.InputTokens ||
			g.OutputTokens != w.OutputTokens || !slices.Equal(g.Blocks, w.Blocks) || g.BlockTokens != w.BlockTokens {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestBadTraces(t *testing.T) {
	good := `{"timestamp": 0, "input_length": 5, "output_length": 2}` + "\n"
	cases := []struct{ name, in, want string }{
		{"empty", "\n \n", "an empty trace"},
		{"neither", "hello\n", "neither tpsbench records, a Mooncake trace"},
		{"not JSON", good + `{"timestamp": 1, "input_length": 5,` + "\n", "t.jsonl:2: not a Mooncake trace line"},
		{"no output", good + `{"timestamp": 1, "input_length": 5}` + "\n", "t.jsonl:2: a Mooncake trace line needs"},
		{"negative time", good + `{"timestamp": -1, "input_length": 5, "output_length": 2}` + "\n", "t.jsonl:2: timestamp -1"},
		{"zero input", good + `{"timestamp": 1, "input_length": 0, "output_length": 2}` + "\n", "t.jsonl:2: input_length 0"},
		{"huge output", good + `{"timestamp": 1, "input_length": 5, "output_length": 9000000000}` + "\n", "t.jsonl:2: output_length 9000000000"},
		{"too many blocks", good + `{"timestamp": 1, "input_length": 2, "output_length": 2, "hash_ids": [1, 2, 3]}` + "\n", "t.jsonl:2: 3 hash_ids for 2 input tokens"},
		{"negative id", good + `{"timestamp": 1, "input_length": 5, "output_length": 2, "hash_ids": [-4]}` + "\n", "t.jsonl:2: hash_ids[0] = -4"},
		{"a line too long", good + `{"timestamp": 1, "input_length": 5, "output_length": 2, "x": "` + strings.Repeat("a", 2<<20) + `"}` + "\n", "t.jsonl:2: a line over"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(t, c.in, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	for _, o := range []Options{{Speed: -1}, {From: time.Second, To: time.Second}, {ShardI: 3, ShardN: 3}, {Format: "csv"}} {
		if _, err := NewReader(strings.NewReader(good), "t", o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// A records file's bad line (stamps out of order, a count over the
// bound, not JSON) costs its request, counted, not the replay: the
// reorder window read ahead of the first send met it and replayed
// nothing.
func TestBadRecordsSkipped(t *testing.T) {
	good := func(at int) string {
		return fmt.Sprintf(`{"v":3,"t0":1,"scheduled":%d,"sent":%d,"done":%d,"first":%d,"last":%d,"prompt_tokens":3,"output_tokens":2}`+"\n", at, at, at+9, at+1, at+2)
	}
	in := good(0) + `{"v":3,"sent":5,"done":1,"prompt_tokens":3,"output_tokens":2}` + "\n" + good(10) +
		`{"v":3,"sent":1,"done":5,"prompt_tokens":3,"output_tokens":2,"max_tokens":9000000000000}` + "\n" + "not json\n" + good(20)
	rd, err := NewReader(strings.NewReader(in), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for e := (Entry{}); ; n++ {
		if err := rd.Next(&e); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	st := rd.Stats()
	if n != 3 || st.Bad != 3 || st.FirstBad == nil || !strings.Contains(st.FirstBad.Error(), "t.jsonl:2") {
		t.Errorf("%d entries, stats %+v; want 3 entries and 3 bad lines, the first on line 2", n, st)
	}
}

// Arrivals whose difference wraps int64 (valid records' stamps reach
// 2^61 on either side of t0) are not sent at once as late: the far one
// cannot be replayed, and says so.
func TestArrivalsFarApart(t *testing.T) {
	rec := func(t0, at int64) string {
		return fmt.Sprintf(`{"v":3,"t0":%d,"scheduled":%d,"sent":%d,"done":%d,"first":%d,"last":%d,"prompt_tokens":3,"output_tokens":2}`+"\n", t0, at, at, at+9, at+1, at+2)
	}
	in := rec(0, -1<<61) + rec(0, -1<<61+5e9) + rec(1<<62, 1<<61-10)
	rd, err := NewReader(strings.NewReader(in), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	for e := (Entry{}); rd.Next(&e) == nil; {
		got = append(got, e)
	}
	st := rd.Stats()
	// 2^62 + 2^61 - 10 ns after -2^61: 2^63 - 10 ns, 292 years of 365 days
	if len(got) != 2 || got[1].Offset != 5*time.Second || st.Late != 0 || st.Bad != 1 || !strings.Contains(st.FirstBad.Error(), "t.jsonl:3: arrives 292 years after") {
		t.Errorf("entries %+v, stats %+v", got, st)
	}
}

// An input length past the bound is replayed at the bound, its prefix
// blocks cut to fit, and counted: 2^30 built a prompt of 6 GB.
func TestLongInputsClipped(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 5, "output_length": 2}` + "\n" +
		`{"timestamp": 1, "input_length": 1073741824, "output_length": 2, "hash_ids": [1, 2, 3, 4]}` + "\n" +
		`{"timestamp": 2, "input_length": 1500, "output_length": 2, "hash_ids": [1, 2]}` + "\n"
	rd, err := NewReader(strings.NewReader(in), "t.jsonl", Options{MaxInputTokens: 1024})
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	for e := (Entry{}); rd.Next(&e) == nil; {
		got = append(got, e)
	}
	if len(got) != 3 || got[0].InputTokens != 5 || got[1].InputTokens != 1024 || len(got[1].Blocks) != 2 ||
		got[2].InputTokens != 1024 || len(got[2].Blocks) != 2 {
		t.Fatalf("entries %+v", got)
	}
	if st := rd.Stats(); st.Clipped != 2 || st.FirstClipped != 2 {
		t.Errorf("stats %+v: want 2 clipped, the first on line 2", st)
	}
	for _, bound := range []int{-1, workload.MaxPromptTokens + 1} {
		if _, err := NewReader(strings.NewReader(in), "t", Options{MaxInputTokens: bound}); err == nil {
			t.Errorf("bound %d accepted", bound)
		}
	}
}

// TestScaleAndContext: input lengths scale with their blocks, and an
// entry is clipped so that input and output fit the server's context.
func TestScaleAndContext(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 6909, "output_length": 100, "hash_ids": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]}` + "\n" +
		`{"timestamp": 1, "input_length": 1000, "output_length": 100}` + "\n" +
		`{"timestamp": 2, "input_length": 10, "output_length": 9000}` + "\n"
	rd, err := NewReader(strings.NewReader(in), "t.jsonl", Options{InputScale: 0.5, Context: 4096})
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	for e := (Entry{}); rd.Next(&e) == nil; {
		got = append(got, e)
	}
	// 6,909 x 0.5 = 3,455 tokens (blocks of 256), clipped to 4,096 - 100;
	// 500 fits; an output of 9,000 leaves a one-token prompt
	if len(got) != 3 || got[0].InputTokens != 3455 || got[0].BlockTokens != 256 || len(got[0].Blocks) != 13 ||
		got[1].InputTokens != 500 || got[1].OutputTokens != 100 || got[2].InputTokens != 1 || got[2].OutputTokens != 4095 {
		t.Fatalf("entries %+v", got)
	}
	if st := rd.Stats(); st.Clipped != 1 || st.FirstClipped != 3 {
		t.Errorf("stats %+v: want 1 clipped, on line 3", st)
	}
	rd, _ = NewReader(strings.NewReader(in), "t.jsonl", Options{Context: 4096})
	var e Entry
	if rd.Next(&e); e.InputTokens != 3996 || len(e.Blocks) != 7 {
		t.Errorf("unscaled first entry %+v: want 3,996 tokens in 7 whole blocks", e)
	}
	for _, o := range []Options{{InputScale: -1}, {Context: -5}} {
		if _, err := NewReader(strings.NewReader(in), "t", o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestWindowSpeedShard: a window keeps its part of the trace counted from
// its start, speed divides the offsets, and shards split the entries
// between them, each once, each at its trace time.
func TestWindowSpeedShard(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10; i++ {
		b.WriteString(`{"timestamp": ` + strconv.Itoa(i*100) + `, "input_length": 5, "output_length": 2}` + "\n")
	}
	all, _ := readAll(t, b.String(), Options{})
	win, _ := readAll(t, b.String(), Options{From: 250 * time.Millisecond, To: 650 * time.Millisecond, Speed: 2})
	if len(win) != 4 || win[0].Index != 3 || win[0].Offset != 25*time.Millisecond || win[3].Offset != 175*time.Millisecond {
		t.Fatalf("window: %+v", win)
	}
	var union []int
	for i := 0; i < 3; i++ {
		sh, _ := readAll(t, b.String(), Options{ShardI: i, ShardN: 3})
		for _, e := range sh {
			if e.Offset != all[e.Index].Offset {
				t.Errorf("shard %d: entry %d at %v, the trace's %v", i, e.Index, e.Offset, all[e.Index].Offset)
			}
			union = append(union, e.Index)
		}
	}
	slices.Sort(union)
	if !slices.Equal(union, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("shards replay %v", union)
	}
}

// TestRecordsAsTrace: records (written as requests end, so out of arrival
// order) replay in arrival order, with their prompt and output counts; a
// failure replays its budget, warm-up and counts unknown are skipped, and
// a prefix fingerprint's byte blocks become token blocks.
func TestRecordsAsTrace(t *testing.T) {
	recs := []record.Record{
		{Seq: 0, T0: 1e18, Scheduled: 300e6, Sent: 300e6, First: 350e6, Last: 400e6, Done: 400e6, PromptTokens: 40, OutputTokens: 10, MaxTokens: 50},
		{Seq: 1, T0: 1e18, Scheduled: 100e6, Sent: 100e6, First: 150e6, Last: 500e6, Done: 500e6, PromptTokens: 80, OutputTokens: 20,
			Prefix: &record.Prefix{Blocks: []uint64{7, 9}, BlockBytes: 100, Bytes: 320}},
		{Seq: 2, T0: 1e18, Scheduled: 200e6, Sent: 200e6, Done: 600e6, PromptTokens: 30, MaxTokens: 64, Error: &record.Error{Kind: record.KindTimeout, Message: "x"}},
		{Seq: 3, T0: 1e18, Scheduled: 0, Sent: 0, First: 1e6, Last: 9e6, Done: 9e6, PromptTokens: 30, OutputTokens: 3, Warmup: true},
		{Seq: 4, T0: 1e18, Scheduled: 50e6, Sent: 50e6, First: 60e6, Last: 70e6, Done: 70e6, OutputTokens: 3},
	}
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	for i := range recs {
		recs[i].V = record.SchemaVersion
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	rd, err := NewReader(&buf, "r.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	for {
		var e Entry
		if err := rd.Next(&e); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		got = append(got, e)
	}
	if len(got) != 3 || rd.Stats().Skipped != 2 {
		t.Fatalf("%d entries, %d skipped: %+v", len(got), rd.Stats().Skipped, got)
	}
	if got[0].Line != 2 || got[0].Offset != 0 || got[0].InputTokens != 80 || got[0].OutputTokens != 20 ||
		!slices.Equal(got[0].Blocks, []uint64{7, 9}) || got[0].BlockTokens != 25 {
		t.Errorf("first: %+v", got[0])
	}
	if got[1].Line != 3 || got[1].Offset != 100*time.Millisecond || got[1].OutputTokens != 64 {
		t.Errorf("second (a failure, its budget): %+v", got[1])
	}
	if got[2].Line != 1 || got[2].Offset != 200*time.Millisecond || got[2].OutputTokens != 10 {
		t.Errorf("third: %+v", got[2])
	}
}
