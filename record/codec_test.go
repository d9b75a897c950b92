package record

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

func sample() *Record {
	r := &Record{V: SchemaVersion, Run: "abc", Step: "c=4", StepIndex: 2, Seq: 7, Model: "m", URL: "http://h/v1/chat/completions",
		API: "chat", Stream: true, Concurrency: 4, Rate: 2.5, T0: 1700000000000000000, Scheduled: 10, Sent: 20, First: 120, Last: 320, Done: 330,
		Chunks: []Chunk{{At: 100, Tokens: 1}, {At: 200, Tokens: 3}, {At: 300, Tokens: 1, Kind: ChunkReasoning}}, OutputTokens: 5, ReasoningTokens: 1, TokenSource: SourceUsage, UsageTokens: 5, PromptTokens: 9,
		MaxTokens: 5, Status: 200, ResponseID: "cmpl-1", FinishReason: "length"}
	return r
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	in := []*Record{sample(), {V: 1, Seq: 1, Sent: 5, Done: 9, Error: &Error{Kind: KindHTTPStatus, Message: "HTTP 503 \"busy\"\n<>&"}}}
	for _, r := range in {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Fatalf("%d lines for 2 records", n)
	}
	if !strings.Contains(buf.String(), `"chunks":[[100,1],[200,3],[300,1,1]]`) {
		t.Errorf("chunks not written as pairs: %s", buf.String())
	}
	rd := NewReader(&buf, "mem")
	for i, want := range in {
		var got Record
		if err := rd.Next(&got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !reflect.DeepEqual(&got, want) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got, *want)
		}
	}
	var r Record
	if err := rd.Next(&r); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last record: %v, want EOF", err)
	}
}

func TestReaderErrors(t *testing.T) {
	good := `{"v":1,"seq":1,"sent":1,"done":2}`
	cases := []struct {
		name, in string
		partial  bool
		want     string
	}{
		{"partial last line", good + "\n" + `{"v":1,"se`, true, "mem:2"},
		{"bad middle line", good + "\nnot json\n" + good + "\n", false, "mem:2: not a record"},
		{"partial last line of one byte", good + "\n{", true, "mem:2"},
		{"future schema", `{"v":99}` + "\n", false, "schema version 99"},
		{"the next schema", `{"v":4}` + "\n", false, "schema version 4"}, // this reader's is 3
		{"no version", `{"seq":1}` + "\n", false, "schema version 0"},
		{"stamps out of order", `{"v":1,"sent":5,"done":1}` + "\n", false, "out of order"},
		{"chunks out of order", `{"v":1,"sent":0,"done":9,"chunks":[[5,1],[2,1]]}` + "\n", false, "chunk 1"},
		{"bad chunk", `{"v":1,"chunks":[[1]]}` + "\n", false, "chunk"},
		// a stamp of -9.2e18 made report and watch grow bins until killed
		{"chunk before sent", `{"v":1,"sent":0,"done":9,"chunks":[[-9200000000000000000,1]]}` + "\n", false, "chunk 0"},
		{"chunk after done", `{"v":1,"sent":0,"done":9,"chunks":[[10,1]]}` + "\n", false, "chunk 0"},
		{"chunk of too many tokens", `{"v":1,"sent":0,"done":9,"chunks":[[1,2000000000]]}` + "\n", false, "2000000000 tokens"},
		{"unknown chunk kind", `{"v":3,"sent":0,"done":9,"chunks":[[1,1,7]]}` + "\n", false, "kind 7"},
		{"chunk of four values", `{"v":3,"sent":0,"done":9,"chunks":[[1,1,1,1]]}` + "\n", false, "chunk"},
		{"more reasoning than output", `{"v":3,"sent":0,"done":9,"output_tokens":3,"reasoning_tokens":2,"tool_call_tokens":2}` + "\n", false, "do not fit"},
		{"negative reasoning", `{"v":3,"sent":0,"done":9,"output_tokens":3,"reasoning_tokens":-1}` + "\n", false, "do not fit"},
		{"trace reuse above its input", `{"v":3,"sent":0,"done":9,"trace":{"line":1,"offset_ns":0,"input_tokens":5,"output_tokens":1,"reused_tokens":6}}` + "\n", false, "trace reference"},
		{"prefix blocks beyond its bytes", `{"v":3,"sent":0,"done":9,"prefix":{"blocks":[1,2],"block_bytes":10,"bytes":15}}` + "\n", false, "prefix of 2 blocks"},
		{"prefix blocks of no bytes", `{"v":3,"sent":0,"done":9,"prefix":{"block_bytes":0,"bytes":15}}` + "\n", false, "prefix of 0 blocks"},
		{"output tokens near MaxInt64", `{"v":1,"sent":0,"done":9,"output_tokens":9223372036854775000}` + "\n", false, "token count"},
		{"t0 before 1970", `{"v":1,"t0":-5,"sent":0,"done":9}` + "\n", false, "t0"},
		{"stamp past int64 with t0", `{"v":1,"t0":1700000000000000000,"sent":0,"done":9000000000000000000}` + "\n", false, "out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(c.in), "mem")
			var r Record
			var err error
			for err == nil {
				err = rd.Next(&r)
			}
			if errors.Is(err, io.EOF) {
				t.Fatalf("no error for %q", c.in)
			}
			if errors.Is(err, ErrPartialLine) != c.partial || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q (partial %v), want it to mention %q (partial %v)", err, errors.Is(err, ErrPartialLine), c.want, c.partial)
			}
		})
	}
}

func TestBlankLinesAndLongLines(t *testing.T) {
	r := sample()
	for i := 0; i < 200000; i++ { // a line of several MB, past the reader's buffer
		r.Chunks = append(r.Chunks, Chunk{At: int64(400 + i), Tokens: 1})
	}
	r.Last = r.Sent + r.Chunks[len(r.Chunks)-1].At
	r.Done = r.Last
	var buf bytes.Buffer
	buf.WriteString("\n\n")
	w := NewWriter(&buf)
	_ = w.Write(r)
	_ = w.Flush()
	rd := NewReader(&buf, "mem")
	var got Record
	if err := rd.Next(&got); err != nil {
		t.Fatal(err)
	}
	if len(got.Chunks) != len(r.Chunks) {
		t.Fatalf("%d chunks read back, want %d", len(got.Chunks), len(r.Chunks))
	}
}

func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	_ = w.Write(sample())
	_ = w.Flush()
	f.Add(buf.String())
	f.Add(`{"v":1,"chunks":[[1,2],[3,4]]}` + "\n" + `{"v":1`)
	f.Add(`{"header":{"run":"r","sent":{"a":[1]},"targets":{"list":[]}}}` + "\n" + `{"v":1}` + "\n" + `{"header":null}`)
	f.Add("\uFEFF" + `{"v":1,"t0":9,"sent":1,"done":5,"chunks":[[-9200000000000000000,1]]}` + "\n")
	f.Add(`{"v":1,"t0":4611686018427387904,"sent":2305843009213693952,"done":2305843009213693952}` + "\n")
	f.Fuzz(func(t *testing.T, in string) {
		rd := NewReader(strings.NewReader(in), "fuzz")
		for i := 0; i <= len(in); i++ {
			var r Record
			if err := rd.Next(&r); err != nil {
				return
			}
			if r.V < 1 || r.V > SchemaVersion {
				t.Fatalf("accepted schema version %d", r.V)
			}
			// what metrics rely on: absolute stamps that do not wrap, and
			// chunks inside the request
			for _, st := range []int64{r.Scheduled, r.Sent, r.First, r.Last, r.Done} {
				if abs := r.Abs(st); (st > 0 && abs < r.T0) || (st < 0 && abs > r.T0) {
					t.Fatalf("t0 %d + stamp %d wraps", r.T0, st)
				}
			}
			for _, c := range r.Chunks {
				if c.At < 0 || c.Tokens < 0 || c.Tokens > MaxTokens || (r.Done >= r.Sent && c.At > r.Done-r.Sent) {
					t.Fatalf("accepted chunk %v of a request sent %d, done %d", c, r.Sent, r.Done)
				}
			}
		}
		t.Fatal("reader did not end")
	})
}

// TestReadsSchemaV1: records written by schema version 1 keep reading as
// the format grows.
func TestReadsSchemaV1(t *testing.T) {
	f, err := os.Open("testdata/v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := NewReader(f, "v1.jsonl")
	n := 0
	for {
		var r Record
		err := rd.Next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.V != 1 || r.OutputTokens == 0 || len(r.Chunks) == 0 {
			t.Fatalf("record %+v", r)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d records, want 3", n)
	}
}
