package record

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// Rules pinned from what each function says it does, at their edges.

// TestLeadingHeadersOfAMerge: a merge writes one header a shard at the
// head, a byte-order mark may open the file, and a cut header line (a run
// still writing it) is not yet a header.
func TestLeadingHeadersOfAMerge(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.WriteHeader(Header{Run: "a"})
	w.WriteHeader(Header{Run: "b"})
	w.Write(&Record{Run: "a"})
	w.WriteHeader(Header{Run: "late"}) // after a record: not leading
	w.Flush()
	file := append([]byte("\uFEFF"), buf.Bytes()...)
	lead := LeadingHeaders(bytes.NewReader(file), "merged")
	if len(lead) != 2 || lead[0].Run != "a" || lead[1].Run != "b" {
		t.Errorf("leading headers %+v, want runs a and b", lead)
	}
	cut := bytes.TrimSuffix(bytes.SplitAfter(buf.Bytes(), []byte("\n"))[0], []byte("\n"))
	if lead := LeadingHeaders(bytes.NewReader(cut), "cut"); len(lead) != 0 {
		t.Errorf("a header line without its end read as %+v", lead)
	}
}

// TestLongLineWithinTheBound: a line longer than the reader's buffer (1
// MiB) and within MaxLine is one record, and the next line is read after
// it.
func TestLongLineWithinTheBound(t *testing.T) {
	big := &Record{V: 1, Seq: 1, Sent: 1, Done: 1e9, Stream: true}
	for i := range 200000 {
		big.Chunks = append(big.Chunks, Chunk{At: int64(i) + 1, Tokens: 1})
	}
	big.OutputTokens = len(big.Chunks)
	big.First, big.Last = big.Sent+1, big.Sent+int64(len(big.Chunks))
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Write(big); err != nil {
		t.Fatal(err)
	}
	w.Write(&Record{V: 1, Seq: 2, Sent: 1, Done: 2})
	w.Flush()
	if buf.Len() < 1<<20+1000 {
		t.Fatalf("a line of %d bytes: not past the buffer", buf.Len())
	}
	got, err := readAll(NewReader(&buf, "long"))
	if !errors.Is(err, io.EOF) || len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("records %v, %v; want 1 and 2", got, err)
	}
}

// TestLongHeaderLine: a header longer than the reader's buffer is a
// header, as a short one is.
func TestLongHeaderLine(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.WriteHeader(Header{Run: "r", Sent: map[string]any{"prompt": strings.Repeat("p", 2<<20)}})
	w.Write(&Record{V: 1, Seq: 1, Sent: 1, Done: 2})
	w.Flush()
	rd := NewReader(&buf, "long-header")
	got, err := readAll(rd)
	if !errors.Is(err, io.EOF) || len(got) != 1 || len(rd.Headers()) != 1 || rd.Headers()[0].Run != "r" {
		t.Errorf("records %v, %v, headers %d", got, err, len(rd.Headers()))
	}
}

// TestLineOverTheBound: MaxLine is 64 MiB, what one line may make a
// reader hold (a record of MaxChunks chunks is far under it); a line one
// byte longer than a reader's bound is refused by its number, the bound
// shortened here to keep the test small.
func TestLineOverTheBound(t *testing.T) {
	if MaxLine != 64<<20 || NewReader(nil, "").max != MaxLine {
		t.Fatalf("MaxLine %d", MaxLine)
	}
	long := io.MultiReader(strings.NewReader(line(1)), io.LimitReader(zeros{}, 4<<20+1), strings.NewReader("\n"+line(3)))
	rd := NewReader(long, "huge")
	rd.max = 4 << 20
	got, err := readAll(rd)
	if len(got) != 1 || err == nil || !strings.Contains(err.Error(), "huge:2: line longer than 67108864 bytes") {
		t.Errorf("records %v, %v", got, err)
	}
}

// TestLineOfExactlyTheBound: a line of the bound's length is read; one
// byte more is not.
func TestLineOfExactlyTheBound(t *testing.T) {
	const bound = 4096
	rec := strings.TrimSuffix(line(1), "\n")
	for _, extra := range []int{0, 1} {
		padded := rec[:len(rec)-1] + strings.Repeat(" ", bound+extra-len(rec)) + "}"
		rd := NewReader(strings.NewReader(padded+"\n"+line(2)), "edge")
		rd.max = bound
		got, err := readAll(rd)
		if ok := len(got) == 2 && errors.Is(err, io.EOF); ok != (extra == 0) {
			t.Errorf("a line of %d bytes under a bound of %d: records %v, %v", len(padded), bound, got, err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestEndlessLineNamedByItsNumber: skipping bad lines, a line without
// end is no records file, said with the line it began at.
func TestEndlessLineNamedByItsNumber(t *testing.T) {
	defer func(n int) { maxSkipped = n }(maxSkipped)
	maxSkipped = 4096
	rd := NewReader(io.MultiReader(strings.NewReader(line(1)+line(2)), io.LimitReader(zeros{}, 1<<20)), "endless")
	rd.max = 1024
	rd.SkipBad(func(error) {})
	got, err := readAll(rd)
	if len(got) != 2 || err == nil || !strings.Contains(err.Error(), "endless:3: a line over 4096 bytes") {
		t.Errorf("records %v, %v", got, err)
	}
}

// TestOpenFileCutsOneByte: a partial last line of one byte is cut, and
// one longer than the 64 KiB read from the end at a time.
func TestOpenFileCutsOneByte(t *testing.T) {
	for _, partial := range []string{"{", `{"v":1,"x":"` + strings.Repeat("y", 200<<10)} {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		os.WriteFile(path, []byte(line(1)+partial), 0o644)
		w, cut, err := OpenFile(path)
		if err != nil || cut != int64(len(partial)) {
			t.Fatalf("partial line of %d bytes: cut %d, %v", len(partial), cut, err)
		}
		w.Close()
		if b, _ := os.ReadFile(path); string(b) != line(1) {
			t.Errorf("left %d bytes, want the whole first line", len(b))
		}
	}
}

// TestOutputlessFromOneInput: a request of one input (one text to embed)
// generates no tokens.
func TestOutputlessFromOneInput(t *testing.T) {
	if !(&Record{Inputs: 1}).Outputless() || (&Record{}).Outputless() {
		t.Error("one input: not outputless, or none: outputless")
	}
}

// TestSpansByKind: the reasoning span runs from the first reasoning chunk
// to the last, the answer span likewise over the others, each from the
// send.
func TestSpansByKind(t *testing.T) {
	r := &Record{Sent: 1000, Chunks: []Chunk{{At: 10, Kind: ChunkReasoning}, {At: 20, Kind: ChunkReasoning}, {At: 30}, {At: 40, Kind: ChunkReasoning}, {At: 50}}}
	if f, l, ok := r.ReasoningSpan(); !ok || f != 1010 || l != 1040 {
		t.Errorf("reasoning span %d-%d %v", f, l, ok)
	}
	if f, l, ok := r.AnswerSpan(); !ok || f != 1030 || l != 1050 {
		t.Errorf("answer span %d-%d %v", f, l, ok)
	}
	plain := &Record{Sent: 1000, Chunks: []Chunk{{At: 5}}}
	if _, _, ok := plain.ReasoningSpan(); ok {
		t.Error("a reasoning span without reasoning")
	}
}

// TestFoldingEmptyChunksAddsNoTokens: past MaxChunks a chunk is folded
// into the last one: its tokens added, none for a chunk that carried none.
func TestFoldingEmptyChunksAddsNoTokens(t *testing.T) {
	r := &Record{Chunks: make([]Chunk, MaxChunks)}
	r.Chunks[MaxChunks-1] = Chunk{At: 5, Tokens: 2}
	if r.AppendChunk(Chunk{At: 7, Tokens: 0}) || r.AppendChunk(Chunk{At: 6, Tokens: 3}) {
		t.Fatal("a chunk past MaxChunks appended")
	}
	if last := r.Chunks[MaxChunks-1]; last.Tokens != 5 || last.At != 7 || r.ChunksFolded != 2 {
		t.Errorf("last chunk %+v, %d folded; want 5 tokens at 7, 2 folded", last, r.ChunksFolded)
	}
}

// TestSecondTokenAndPrefillOfARecord: TTST from the first two chunks'
// arrivals; prefill TPS the prompt over TTFT, only with a prompt count and
// a first token after the send.
func TestSecondTokenAndPrefillOfARecord(t *testing.T) {
	r := &Record{Sent: 1000, First: 1000 + 2e8, OutputTokens: 3, PromptTokens: 100, Chunks: []Chunk{{At: 2e8}, {At: 2e8 + 15}, {At: 2e8 + 40}}}
	if d, ok := r.TTST(); !ok || d != 15 {
		t.Errorf("TTST %v %v, want 15 ns", d, ok)
	}
	if v, ok := r.PrefillTPS(); !ok || v != 500 {
		t.Errorf("prefill %v %v, want 500 tokens/s", v, ok)
	}
	for name, r := range map[string]*Record{
		"one chunk":       {Sent: 1000, First: 2000, OutputTokens: 1, PromptTokens: 5, Chunks: []Chunk{{At: 1000}}},
		"no prompt count": {Sent: 1000, First: 2000, OutputTokens: 1, Chunks: []Chunk{{At: 1000}, {At: 1001}}},
		"first at send":   {Sent: 1000, First: 1000, OutputTokens: 2, PromptTokens: 5, Chunks: []Chunk{{At: 0}}},
		"no output":       {Sent: 1000, First: 2000, PromptTokens: 5},
	} {
		_, ttst := r.TTST()
		_, prefill := r.PrefillTPS()
		if ttst != (name == "no prompt count") || prefill != (name == "one chunk") {
			t.Errorf("%s: TTST %v, prefill %v", name, ttst, prefill)
		}
	}
}

// TestChunkJSONShapes: a chunk is [at, tokens] or [at, tokens, kind],
// spaces allowed between its parts, nothing else.
func TestChunkJSONShapes(t *testing.T) {
	for in, want := range map[string]*Chunk{
		`[5,2]`: {At: 5, Tokens: 2}, ` [ -5 , 2 , 1 ] `: {At: -5, Tokens: 2, Kind: ChunkReasoning},
		`[5]`: nil, `[5,2,1,0]`: nil, `[5,2`: nil, `[5 2]`: nil, `5,2]`: nil, ``: nil, `[5,2]x`: nil, `[,2]`: nil,
	} {
		var c Chunk
		err := c.UnmarshalJSON([]byte(in))
		if (err == nil) != (want != nil) || (want != nil && c != *want) {
			t.Errorf("%q: %+v, %v", in, c, err)
		}
	}
	for _, c := range []Chunk{{At: 7, Tokens: 3}, {At: 1 << 40, Tokens: 1, Kind: ChunkToolCall}} {
		b, _ := c.MarshalJSON()
		var back Chunk
		if err := back.UnmarshalJSON(b); err != nil || back != c {
			t.Errorf("%+v written %s read %+v, %v", c, b, back, err)
		}
	}
}

// TestClockOffsets: a clock's offsets are nanoseconds since its epoch,
// T0 its wall time, Time their inverse.
func TestClockOffsets(t *testing.T) {
	before := time.Now()
	c := NewClock()
	if c.T0() < before.UnixNano() || c.T0() > time.Now().UnixNano() {
		t.Errorf("T0 %d outside the call", c.T0())
	}
	at := time.Now()
	off := c.Since(at)
	if !c.Time(off).Equal(at) || off < 0 || c.Now() < off {
		t.Errorf("offset %d, back %v, want %v", off, c.Time(off), at)
	}
}

// TestOutcomesOfARecord: a request the plan cancelled is that, not a
// failure of the server; an outputless request's E2E runs to its answer's
// end, a generating one's to its last token.
func TestOutcomesOfARecord(t *testing.T) {
	r := &Record{}
	r.Fail(KindClientCancel, "planned")
	if !r.CancelledByPlan() || (&Record{Error: &Error{Kind: KindTimeout}}).CancelledByPlan() || (&Record{}).CancelledByPlan() {
		t.Error("cancelled by the plan")
	}
	if e := (&Record{Inputs: 2, Sent: 10, Last: 15, Done: 40}).E2E(); e != 30 {
		t.Errorf("outputless E2E %d, want 30", e)
	}
	if e := (&Record{Sent: 10, Last: 15, Done: 40, OutputTokens: 1}).E2E(); e != 5 {
		t.Errorf("E2E %d, want 5", e)
	}
}

// TestBlankLines: blank lines between headers and records are nothing; a
// file ending in spaces without a newline ends there.
func TestBlankLines(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.WriteHeader(Header{Run: "a"})
	w.Flush()
	buf.WriteString("\n  \n")
	w.WriteHeader(Header{Run: "b"})
	w.Write(&Record{V: 1, Seq: 4, Sent: 1, Done: 2})
	w.Flush()
	buf.WriteString("   ")
	if lead := LeadingHeaders(bytes.NewReader(buf.Bytes()), "blank"); len(lead) != 2 {
		t.Errorf("%d leading headers across blank lines, want 2", len(lead))
	}
	rd := NewReader(bytes.NewReader(buf.Bytes()), "blank")
	var r Record
	if err := rd.Next(&r); err != nil || r.Seq != 4 || rd.Line() != 5 {
		t.Errorf("record %d, %v, at line %d; want 4 at line 5", r.Seq, err, rd.Line())
	}
	if err := rd.Next(&r); !errors.Is(err, io.EOF) {
		t.Errorf("after the trailing spaces: %v", err)
	}
}

// TestLongLastLineSkipped: skipping bad lines, a last line over the bound
// without its newline is reported by its number and skipped.
func TestLongLastLineSkipped(t *testing.T) {
	rd := NewReader(strings.NewReader(line(1)+strings.Repeat("x", 5000)), "long-last")
	rd.max = 1024
	var bad []error
	rd.SkipBad(func(err error) { bad = append(bad, err) })
	got, err := readAll(rd)
	if !errors.Is(err, io.EOF) || len(got) != 1 || len(bad) != 1 || !strings.Contains(bad[0].Error(), "long-last:2: line longer than") {
		t.Errorf("records %v, %v, bad %v", got, err, bad)
	}
}

// TestReadFailureNamed: a read that fails names the file.
func TestReadFailureNamed(t *testing.T) {
	rd := NewReader(io.MultiReader(strings.NewReader(line(1)), iotest.ErrReader(errors.New("disk gone"))), "broken")
	if _, err := readAll(rd); err == nil || !strings.Contains(err.Error(), "reading broken: disk gone") {
		t.Errorf("%v", err)
	}
}

// TestPhaseRatesNeedTwoTokens: a phase's decode rate is its tokens after
// the first over its span: none for a phase of one token.
func TestPhaseRatesNeedTwoTokens(t *testing.T) {
	if _, ok := phaseTPS(1, 10, 20, true); ok {
		t.Error("a rate of one token")
	}
	if v, ok := phaseTPS(3, 0, 1e9, true); !ok || v != 2 {
		t.Errorf("3 tokens over 1 s: %v %v, want 2", v, ok)
	}
}

// TestRetriesBound: a record's retries are at most 2^20; more are
// refused, and clamped when repaired.
func TestRetriesBound(t *testing.T) {
	ok := &Record{V: 1, Sent: 1, Done: 2, Retries: 1 << 20}
	if err := ok.validate(); err != nil {
		t.Errorf("2^20 retries: %v", err)
	}
	over := &Record{V: 1, Sent: 1, Done: 2, Retries: 1<<20 + 1}
	if over.validate() == nil {
		t.Error("2^20 + 1 retries taken")
	}
}

// TestHeadersBound: a reader keeps the first 4,096 headers.
func TestHeadersBound(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for range 4097 {
		w.WriteHeader(Header{Run: "r"})
	}
	w.Flush()
	rd := NewReader(&buf, "many")
	if _, err := readAll(rd); !errors.Is(err, io.EOF) || len(rd.Headers()) != 4096 {
		t.Errorf("%v, %d headers kept", err, len(rd.Headers()))
	}
}

// TestUnwritableRecordIsLost: a record that cannot be encoded (a kept
// prompt that is not JSON) is an error and counts as lost.
func TestUnwritableRecordIsLost(t *testing.T) {
	w := newFileWriter(&fullDisk{room: 1 << 20}, 0)
	if err := w.Write(&Record{Seq: 1, RequestPrompt: []byte("{")}); err == nil || w.Lost() != 1 {
		t.Errorf("%v, %d lost", err, w.Lost())
	}
}

// TestChunkJSONCutAndOutOfRange: a chunk cut after its bracket, or of a
// negative token count, is refused, the count named.
func TestChunkJSONCutAndOutOfRange(t *testing.T) {
	for _, in := range []string{`[`, `[5,`, `[-`} {
		var c Chunk
		if err := c.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("%q taken", in)
		}
	}
	var c Chunk
	if err := c.UnmarshalJSON([]byte(`[5,-1]`)); err == nil || !strings.Contains(err.Error(), "token count -1") {
		t.Errorf("[5,-1]: %v", err)
	}
}

// TestAudioSecondsBound: a record's audio is at most a day long.
func TestAudioSecondsBound(t *testing.T) {
	day := &Record{V: 1, Sent: 1, Done: 2, AudioSeconds: 86400}
	over := &Record{V: 1, Sent: 1, Done: 2, AudioSeconds: 86400.5}
	if day.validate() != nil || over.validate() == nil {
		t.Errorf("a day of audio: %v; more: %v", day.validate(), over.validate())
	}
}

// TestBoundsAsDefined: the bounds a records file is held to, as their
// definitions give them: 128 Ki chunks (an answer of 128k tokens, one a
// chunk), 64 Ki events without a token, a line skipped past 1 GiB is no
// records file. A file written under one bound is read under the same.
func TestBoundsAsDefined(t *testing.T) {
	if MaxChunks != 128<<10 || MaxOtherEvents != 64<<10 || maxSkipped != 1<<30 {
		t.Errorf("chunks %d, other events %d, skipped line %d", MaxChunks, MaxOtherEvents, maxSkipped)
	}
}

// TestRecordEdges: the figures of a record at the edges of their
// definitions.
func TestRecordEdges(t *testing.T) {
	r := Record{Sent: 0, First: 5, Last: 9, Done: 10}
	if !r.AppendChunk(Chunk{At: 5, Tokens: 1}) || len(r.Chunks) != 1 {
		t.Error("a first chunk not appended as such")
	}
	r.AppendChunk(Chunk{At: 5, Tokens: 2})
	r.AppendChunk(Chunk{At: 9, Tokens: 1})
	var got [][3]int64
	r.Arrivals(func(at int64, tokens, chunks int) { got = append(got, [3]int64{at, int64(tokens), int64(chunks)}) })
	if len(got) != 2 || got[0] != [3]int64{5, 3, 2} || got[1] != [3]int64{9, 1, 1} {
		t.Errorf("arrivals %v: want 3 tokens in 2 chunks at 5, then 1 in 1 at 9", got)
	}
	none := Record{Sent: 0, First: 5, Last: 9, Done: 10}
	if v, ok := none.RequestTPS(); ok {
		t.Errorf("an answer of no token has a TPS of %v", v)
	}
}
