package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Records a client or a server made hostile: each broke a rule the
// reader holds records to, so the writer wrote a line its own reader
// refused, and one request spoiled the file for report, merge and replay.
func TestWrittenRecordsReadBack(t *testing.T) {
	for _, c := range brokenRecords {
		t.Run(c.name, func(t *testing.T) {
			rec := c.rec
			if rec.validate() == nil {
				t.Fatal("the case breaks no rule")
			}
			got := writeRead(t, &rec)
			if got.Clamped != c.rules || !c.check(got) {
				t.Errorf("read back %+v; want rules %q clamped", *got, c.rules)
			}
		})
	}
}

// brokenRecords break one rule each, most with one field wrong at its
// boundary; check holds the repair to its rule.
var brokenRecords = []struct {
	name  string
	rec   Record
	rules string
	check func(r *Record) bool
}{
	{"a client's budget of 9e12", Record{Sent: 1, Done: 5, MaxTokens: 9e12}, "token counts",
		func(r *Record) bool { return r.MaxTokens == MaxTokens }},
	{"an upstream's prompt count of 2e9", Record{Sent: 1, Done: 5, PromptTokens: 2e9}, "token counts",
		func(r *Record) bool { return r.PromptTokens == MaxTokens }},
	{"a chunk of 2^30+1 tokens", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: 9, Chunks: []Chunk{{At: 1, Tokens: MaxTokens + 1}}}, "chunk tokens",
		func(r *Record) bool { return r.Chunks[0].Tokens == MaxTokens }},
	{"reasoning past the output", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: 8, ReasoningTokens: 10, ToolCallTokens: 3}, "reasoning and tool-call counts",
		func(r *Record) bool { return r.ReasoningTokens == 8 && r.ToolCallTokens == 0 }},
	{"stamps out of order", Record{Sent: 10, First: 4, Last: 3, Done: 2, OutputTokens: 2, Chunks: []Chunk{{At: 9, Tokens: 1}, {At: 3, Tokens: 1}}}, "stamp order, chunk stamps",
		func(r *Record) bool {
			return r.Done == 10 && r.First == 10 && r.Last == 10 && r.Chunks[0].At == 0 && r.Chunks[1].At == 0
		}},
	{"stamps out of order, no tokens", Record{Sent: 10, Done: 2}, "stamp order",
		func(r *Record) bool { return r.Done == 10 && r.First == 0 && r.Last == 0 }},
	{"chunks out of order", Record{Sent: 1, First: 6, Last: 6, Done: 9, OutputTokens: 2, Chunks: []Chunk{{At: 5, Tokens: 1}, {At: 3, Tokens: 1}}}, "chunk order",
		func(r *Record) bool { return r.Chunks[1].At == 5 }},
	{"a stamp past 2^61", Record{Sent: 1, Done: 1 << 62, T0: -4}, "t0, stamps",
		func(r *Record) bool { return r.Done == maxStamp && r.T0 == 0 }},
	{"a trace reference that does not hold", Record{Sent: 1, Done: 5, Trace: &TraceRef{InputTokens: 5, ReusedTokens: 9}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"other events out of order", Record{Sent: 1, Done: 5, OtherEvents: []int64{3, 1, 99}}, "other events",
		func(r *Record) bool { return r.OtherEvents[1] == 3 && r.OtherEvents[2] == 4 }},
	{"retries", Record{Sent: 1, Done: 5, Retries: -1}, "retries",
		func(r *Record) bool { return r.Retries == 0 }},
	{"an unknown phase", Record{Sent: 1, Done: 5, Phase: "warming"}, "phase",
		func(r *Record) bool { return r.Phase == "" }},
	{"a turn outside a session", Record{Sent: 1, Done: 5, Turn: 2}, "session",
		func(r *Record) bool { return r.Session == 0 && r.Turn == 0 }},
	{"a negative session", Record{Sent: 1, Done: 5, Session: -1, Turn: 1}, "session",
		func(r *Record) bool { return r.Session == 0 && r.Turn == 0 }},
	// one field wrong a row, each at its boundary
	{"negative output", Record{Sent: 1, Done: 5, OutputTokens: -1}, "token counts",
		func(r *Record) bool { return r.OutputTokens == 0 }},
	{"negative prompt", Record{Sent: 1, Done: 5, PromptTokens: -1}, "token counts",
		func(r *Record) bool { return r.PromptTokens == 0 }},
	{"negative usage", Record{Sent: 1, Done: 5, UsageTokens: -1}, "token counts",
		func(r *Record) bool { return r.UsageTokens == 0 }},
	{"a budget one past the bound", Record{Sent: 1, Done: 5, MaxTokens: MaxTokens + 1}, "token counts",
		func(r *Record) bool { return r.MaxTokens == MaxTokens }},
	{"more cached than prompt", Record{Sent: 1, Done: 5, PromptTokens: 4, CachedTokens: 5}, "cached tokens",
		func(r *Record) bool { return r.CachedTokens == 4 }},
	{"a negative tokenizer count", Record{Sent: 1, Done: 5, TokenizerTokens: -2}, "tokenizer count",
		func(r *Record) bool { return r.TokenizerTokens == 0 }},
	{"a trace line before the first", Record{Sent: 1, Done: 5, Trace: &TraceRef{Line: -1, InputTokens: 3}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"a trace offset past the bound", Record{Sent: 1, Done: 5, Trace: &TraceRef{Offset: maxStamp + 1, InputTokens: 3}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"negative images", Record{Sent: 1, Done: 5, Images: -1}, "request size",
		func(r *Record) bool { return r.Images == 0 }},
	{"negative audio", Record{Sent: 1, Done: 5, Audios: -1, Videos: 2}, "request size",
		func(r *Record) bool { return r.Audios == 0 && r.Videos == 2 }},
	{"negative videos", Record{Sent: 1, Done: 5, Videos: -3}, "request size",
		func(r *Record) bool { return r.Videos == 0 }},
	{"audio seconds past a day", Record{Sent: 1, Done: 5, Audios: 1, AudioSeconds: maxAudioSeconds + 1}, "request size",
		func(r *Record) bool { return r.AudioSeconds == 0 && r.Audios == 1 }},
	{"negative audio seconds", Record{Sent: 1, Done: 5, AudioSeconds: -0.5}, "request size",
		func(r *Record) bool { return r.AudioSeconds == 0 }},
	{"audio seconds not a number", Record{Sent: 1, Done: 5, AudioSeconds: math.NaN()}, "request size",
		func(r *Record) bool { return r.AudioSeconds == 0 }},
	{"a negative upload", Record{Sent: 1, Done: 5, Upload: -1}, "upload",
		func(r *Record) bool { return r.Upload == 0 }},
	{"a failed request", Record{Sent: 5, Done: 1, MaxTokens: -3, Error: &Error{Kind: KindConnect, Message: "refused"}}, "token counts",
		func(r *Record) bool { return r.MaxTokens == 0 && r.Done == 1 }},
	{"negative cached", Record{Sent: 1, Done: 5, PromptTokens: 4, CachedTokens: -1}, "cached tokens",
		func(r *Record) bool { return r.CachedTokens == 0 && r.PromptTokens == 4 }},
	{"an upload past the bound", Record{Sent: 1, Done: 5, Upload: maxStamp + 1}, "upload",
		func(r *Record) bool { return r.Upload == 0 }},
	{"negative request bytes", Record{Sent: 1, Done: 5, RequestBytes: -1}, "request size",
		func(r *Record) bool { return r.RequestBytes == 0 }},
	{"negative inputs", Record{Sent: 1, Done: 5, Inputs: -1}, "request size",
		func(r *Record) bool { return r.Inputs == 0 }},
	{"inputs one past the bound", Record{Sent: 1, Done: 5, Inputs: MaxTokens + 1}, "request size",
		func(r *Record) bool { return r.Inputs == MaxTokens }},
	{"negative images beside a day of audio", Record{Sent: 1, Done: 5, Images: -1, Audios: 1, AudioSeconds: maxAudioSeconds}, "request size",
		func(r *Record) bool { return r.Images == 0 && r.AudioSeconds == maxAudioSeconds }},
	{"one input that generated a token", Record{Sent: 1, First: 2, Last: 3, Done: 5, Inputs: 1, OutputTokens: 1}, "inputs",
		func(r *Record) bool { return r.Inputs == 0 && r.OutputTokens == 1 }},
	{"negative images beside half a second of audio", Record{Sent: 1, Done: 5, Images: -1, Audios: 1, AudioSeconds: 0.5}, "request size",
		func(r *Record) bool { return r.Images == 0 && r.AudioSeconds == 0.5 }},
	{"inputs beside a chunk", Record{Sent: 1, Done: 5, Inputs: 3, Chunks: []Chunk{{At: 1}}}, "inputs",
		func(r *Record) bool { return r.Inputs == 0 && len(r.Chunks) == 1 }},
	{"retries past the bound", Record{Sent: 1, Done: 5, Retries: maxRetries + 1}, "retries",
		func(r *Record) bool { return r.Retries == maxRetries }},
	{"a tokenizer count past the bound", Record{Sent: 1, Done: 5, TokenizerTokens: MaxTokens + 1}, "tokenizer count",
		func(r *Record) bool { return r.TokenizerTokens == MaxTokens }},
	{"negative tool-call tokens", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: 4, ReasoningTokens: 1, ToolCallTokens: -1}, "reasoning and tool-call counts",
		func(r *Record) bool { return r.ToolCallTokens == 0 && r.ReasoningTokens == 1 }},
	{"negative reasoning tokens", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: 4, ReasoningTokens: -1, ToolCallTokens: 2}, "reasoning and tool-call counts",
		func(r *Record) bool { return r.ReasoningTokens == 0 && r.ToolCallTokens == 2 }},
	{"reasoning past the bound", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: MaxTokens, ReasoningTokens: MaxTokens + 1}, "reasoning and tool-call counts",
		func(r *Record) bool { return r.ReasoningTokens == MaxTokens }},
	{"tool calls past the bound", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: MaxTokens, ToolCallTokens: MaxTokens + 1}, "reasoning and tool-call counts",
		func(r *Record) bool { return r.ToolCallTokens == MaxTokens }},
	{"tool calls past what reasoning left", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: 8, ReasoningTokens: 5, ToolCallTokens: 5}, "reasoning and tool-call counts",
		func(r *Record) bool { return r.ReasoningTokens == 5 && r.ToolCallTokens == 3 }},
	{"a negative trace offset", Record{Sent: 1, Done: 5, Trace: &TraceRef{Offset: -1}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"a negative trace input", Record{Sent: 1, Done: 5, Trace: &TraceRef{InputTokens: -1}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"a trace input past the bound", Record{Sent: 1, Done: 5, Trace: &TraceRef{InputTokens: MaxTokens + 1}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"a negative trace output", Record{Sent: 1, Done: 5, Trace: &TraceRef{OutputTokens: -1}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"a trace output past the bound", Record{Sent: 1, Done: 5, Trace: &TraceRef{OutputTokens: MaxTokens + 1}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"negative reused tokens", Record{Sent: 1, Done: 5, Trace: &TraceRef{InputTokens: 3, ReusedTokens: -1}}, "trace reference",
		func(r *Record) bool { return r.Trace == nil }},
	{"a prefix of 0-byte blocks", Record{Sent: 1, Done: 5, Prefix: &Prefix{Blocks: []uint64{1}, Bytes: 4}}, "prefix",
		func(r *Record) bool { return r.Prefix == nil }},
	{"a prefix of negative length", Record{Sent: 1, Done: 5, Prefix: &Prefix{BlockBytes: 2, Bytes: -1}}, "prefix",
		func(r *Record) bool { return r.Prefix == nil }},
	{"more blocks than the prefix holds", Record{Sent: 1, Done: 5, Prefix: &Prefix{Blocks: []uint64{1, 2}, BlockBytes: 4, Bytes: 4}}, "prefix",
		func(r *Record) bool { return r.Prefix == nil }},
	{"t0 past 2116", Record{Sent: 1, Done: 5, T0: maxT0 + 1}, "t0",
		func(r *Record) bool { return r.T0 == maxT0 }},
	{"a stamp below -2^61", Record{Sent: 1, Done: 5, Scheduled: -maxStamp - 1}, "stamps",
		func(r *Record) bool { return r.Scheduled == -maxStamp }},
	{"a first token before sent", Record{Sent: 10, First: 4, Last: 12, Done: 20, OutputTokens: 2}, "stamp order",
		func(r *Record) bool { return r.First == 10 && r.Last == 12 && r.Done == 20 }},
	{"a last token after done", Record{Sent: 1, First: 2, Last: 30, Done: 20, OutputTokens: 2}, "stamp order",
		func(r *Record) bool { return r.First == 2 && r.Last == 20 && r.Done == 20 }},
	{"one token, after done", Record{Sent: 1, First: 30, Last: 30, Done: 20, OutputTokens: 1}, "stamp order",
		func(r *Record) bool { return r.First == 20 && r.Last == 20 && r.Done == 20 }},
	{"a last token before the first", Record{Sent: 1, First: 5, Last: 3, Done: 9, OutputTokens: 2}, "stamp order",
		func(r *Record) bool { return r.First == 5 && r.Last == 5 }},
	{"a chunk after done", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: 1, Chunks: []Chunk{{At: 7, Tokens: 1}}}, "chunk stamps",
		func(r *Record) bool { return r.Chunks[0].At == 4 }},
	{"a chunk before sent", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: 1, Chunks: []Chunk{{At: -2, Tokens: 1}}}, "chunk stamps",
		func(r *Record) bool { return r.Chunks[0].At == 0 }},
	{"a chunk of negative tokens", Record{Sent: 1, First: 2, Last: 2, Done: 5, OutputTokens: 1, Chunks: []Chunk{{At: 1, Tokens: -3}}}, "chunk tokens",
		func(r *Record) bool { return r.Chunks[0].Tokens == 0 }},
	{"an other event before sent", Record{Sent: 1, Done: 5, OtherEvents: []int64{-5, 2}}, "other events",
		func(r *Record) bool { return r.OtherEvents[0] == 0 && r.OtherEvents[1] == 2 }},
	{"an other event after done", Record{Sent: 1, Done: 5, OtherEvents: []int64{9}}, "other events",
		func(r *Record) bool { return r.OtherEvents[0] == 4 }},
	{"an other event of a request that took no time", Record{Sent: 5, Done: 5, OtherEvents: []int64{1}}, "other events",
		func(r *Record) bool { return r.OtherEvents[0] == 0 }},
	{"more other events than kept", Record{Sent: 1, Done: 5, OtherEvents: make([]int64, MaxOtherEvents+1)}, "other events",
		func(r *Record) bool { return len(r.OtherEvents) == MaxOtherEvents }},
}

// Records at every bound the validator holds, each within the rules:
// the writer writes them as they are and the reader takes them.
func TestRecordsAtTheBounds(t *testing.T) {
	cases := []struct {
		name string
		rec  Record
	}{
		{"every count, stamp and reference at 0", Record{Trace: &TraceRef{}, Prefix: &Prefix{BlockBytes: 1},
			Chunks: []Chunk{{}, {}}, OtherEvents: []int64{0, 0}}},
		{"every count and stamp at its top", Record{Scheduled: -maxStamp, Done: maxStamp, T0: maxT0, OutputTokens: MaxTokens, PromptTokens: MaxTokens,
			UsageTokens: MaxTokens, MaxTokens: MaxTokens, CachedTokens: MaxTokens, TokenizerTokens: MaxTokens, ReasoningTokens: MaxTokens,
			Retries: maxRetries, Upload: maxStamp, Audios: 1, AudioSeconds: maxAudioSeconds,
			Trace:  &TraceRef{Offset: maxStamp, InputTokens: MaxTokens, OutputTokens: MaxTokens, ReusedTokens: MaxTokens},
			Prefix: &Prefix{Blocks: []uint64{1, 2}, BlockBytes: 1, Bytes: 2}, Chunks: []Chunk{{At: maxStamp, Tokens: MaxTokens}},
			OtherEvents: []int64{maxStamp}}},
		{"every output token a tool call", Record{Sent: 3, First: 3, Last: 3, Done: 3, OutputTokens: MaxTokens, ToolCallTokens: MaxTokens}},
		{"reasoning and tool calls filling the output", Record{Sent: 3, First: 4, Last: 4, Done: 5, OutputTokens: 8, ReasoningTokens: 5, ToolCallTokens: 3}},
		{"the most inputs", Record{Sent: 1, Done: 5, Inputs: MaxTokens}},
		{"a first turn", Record{Sent: 1, Done: 5, Session: 1, Turn: 1}},
		{"no tokens, first and last unset", Record{Sent: 5, Done: 6}},
		{"the most other events", Record{Sent: 1, Done: 5, OtherEvents: make([]int64, MaxOtherEvents)}},
		{"every HTTP phase at its top", Record{Sent: 1, Done: 5, HTTP: &HTTPPhases{Blocked: maxStamp, DNS: maxStamp,
			Connecting: maxStamp, TLS: maxStamp, Waiting: maxStamp, Receiving: maxStamp}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := c.rec
			if err := rec.validate(); err != nil {
				t.Fatalf("refused: %v", err)
			}
			got := writeRead(t, &rec)
			got.V = c.rec.V
			// compared as written: a slice read back empty is one written nil
			if g, w := jsonOf(t, got), jsonOf(t, &c.rec); g != w {
				t.Errorf("read back %.300s\nwant %.300s", g, w)
			}
		})
	}
	// a record within the rules is written as it is
	rec := *sample()
	if got := writeRead(t, &rec); got.Clamped != "" || got.MaxTokens != sample().MaxTokens {
		t.Errorf("a valid record was clamped: %q", got.Clamped)
	}
}

func jsonOf(t *testing.T, r *Record) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeRead writes r and reads it back, failing the test when the reader
// refuses what the writer wrote.
func writeRead(t *testing.T, r *Record) *Record {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Write(r); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var got Record
	if err := NewReader(&buf, "mem").Next(&got); err != nil {
		t.Fatalf("the reader refuses what the writer wrote: %v", err)
	}
	return &got
}

// A stream of more than MaxChunks chunks keeps the first MaxChunks-1 as
// they came and folds the rest into the last: counts and the last
// arrival exact (5 million events made a 71 MB line and 573 MB in run).
func TestChunksFolded(t *testing.T) {
	var r Record
	n := MaxChunks + 1000
	for i := 0; i < n; i++ {
		kind := ChunkAnswer
		if i%2 == 1 {
			kind = ChunkReasoning
		}
		r.AppendChunk(Chunk{At: int64(i), Tokens: 2, Kind: kind})
	}
	last := r.Chunks[len(r.Chunks)-1]
	if len(r.Chunks) != MaxChunks || r.ChunksFolded != 1000 || last.At != int64(n-1) || last.Tokens != 2*1001 || last.Kind != ChunkAnswer {
		t.Fatalf("%d chunks, %d folded, last %+v", len(r.Chunks), r.ChunksFolded, last)
	}
	sum := 0
	for _, c := range r.Chunks {
		sum += c.Tokens
	}
	if sum != 2*n {
		t.Errorf("chunks carry %d tokens, want %d", sum, 2*n)
	}
	// a record built with more (a library user's) is folded when written
	big := Record{Sent: 0, Done: int64(n), First: 0, Last: int64(n - 1), OutputTokens: n}
	for i := 0; i < n; i++ {
		big.Chunks = append(big.Chunks, Chunk{At: int64(i), Tokens: 1})
	}
	if got := writeRead(t, &big); len(got.Chunks) != MaxChunks || got.ChunksFolded != 1000 || got.Chunks[MaxChunks-1].Tokens != 1001 {
		t.Errorf("written: %d chunks, %d folded", len(got.Chunks), got.ChunksFolded)
	}
}

// A line longer than a reader takes loses what no figure needs (under a
// bound of 1 MiB, as the encoder's and reader's own of 64 MiB: the test
// of a 64 MiB line took 7 of the package's 10 s).
func TestLongLineShortened(t *testing.T) {
	const bound = 1 << 20
	r := Record{Sent: 1, Done: 5, RequestPrompt: json.RawMessage(`"` + strings.Repeat("a", bound) + `"`),
		Error: &Error{Kind: KindHTTPStatus, Message: strings.Repeat("é", bound)}}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.lineEncoder.max = bound
	if err := w.Write(&r); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	rd := NewReader(&buf, "mem")
	rd.max = bound
	var read Record
	if err := rd.Next(&read); err != nil {
		t.Fatalf("the reader refuses what the writer wrote: %v", err)
	}
	got := &read
	if got.RequestPrompt != nil || len(got.Error.Message) > 4096 || !strings.Contains(got.Clamped, "line length") {
		t.Errorf("read back a prompt of %d bytes, a message of %d, clamped %q", len(got.RequestPrompt), len(got.Error.Message), got.Clamped)
	}
}

// Whatever a writer is given, its reader reads what it wrote.
func FuzzWriteRead(f *testing.F) {
	b, _ := json.Marshal(sample())
	f.Add(b)
	f.Add([]byte(`{"v":3,"sent":10,"first":4,"last":3,"done":2,"output_tokens":2,"chunks":[[9,1],[3,1073741825]]}`))
	f.Add([]byte(`{"v":3,"sent":1,"done":5,"max_tokens":9000000000000,"prompt_tokens":2000000000,"reasoning_tokens":-4}`))
	f.Add([]byte(`{"t0":-1,"scheduled":-9223372036854775808,"other_events":[5,-1,3],"trace":{"line":-1},"prefix":{"blocks":[1,2],"block_bytes":0}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var r Record
		if json.Unmarshal(in, &r) != nil {
			return
		}
		r.V = 0 // the writer's own version
		var buf bytes.Buffer
		w := NewWriter(&buf)
		if err := w.Write(&r); err != nil {
			t.Fatalf("writing %s: %v", in, err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		var got Record
		if err := NewReader(&buf, "fuzz").Next(&got); err != nil {
			t.Fatalf("the reader refuses what the writer wrote from %s: %v", in, err)
		}
	})
}

// TestValidationNamesTheChunk: an error names the chunk that broke the
// order and the one it came before, as a reader looking for it counts.
func TestValidationNamesTheChunk(t *testing.T) {
	r := Record{Sent: 1, First: 2, Last: 6, Done: 9, OutputTokens: 3, Chunks: []Chunk{{At: 1, Tokens: 1}, {At: 5, Tokens: 1}, {At: 3, Tokens: 1}}}
	if err := r.validate(); err == nil || !strings.Contains(err.Error(), "chunk 2 arrives before chunk 1") {
		t.Errorf("validate: %v, want it to name chunks 2 and 1", err)
	}
	late := Record{Sent: 100, First: 102, Last: 102, Done: 105, OutputTokens: 1, Chunks: []Chunk{{At: 9, Tokens: 1}}}
	if err := late.validate(); err == nil || !strings.Contains(err.Error(), "chunk 0 at 9 ns after sent is outside the request (5 ns long)") {
		t.Errorf("validate: %v, want the chunk and the request's length", err)
	}
}

// The line bound is inclusive: a line of exactly the bound is kept whole,
// one byte more loses the prompt; a line still over it once shortened is
// an error, one of exactly the bound is not.
func TestLineBoundEdges(t *testing.T) {
	long := func() *Record {
		return &Record{Seq: 7, Sent: 1, Done: 5, Model: strings.Repeat("m", 6000),
			RequestPrompt: json.RawMessage(`"` + strings.Repeat("a", 100) + `"`)}
	}
	lengthOf := func(r *Record) int {
		var e lineEncoder
		e.init()
		b, err := e.line(r)
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	whole := lengthOf(long())
	shortened := long()
	shortened.RequestPrompt, shortened.Model, shortened.Clamped = nil, cut(shortened.Model), "line length"
	short := lengthOf(shortened)

	for _, tc := range []struct {
		max        int
		wantPrompt bool
		wantErr    bool
	}{
		{whole, true, false},
		{whole - 1, false, false},
		{short, false, false},
		{short - 1, false, true},
	} {
		var e lineEncoder
		e.init()
		e.max = tc.max
		b, err := e.line(long())
		if (err != nil) != tc.wantErr {
			t.Errorf("bound %d (whole line %d, shortened %d): error %v, want one: %v", tc.max, whole, short, err, tc.wantErr)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("longer than the %d", tc.max)) {
				t.Errorf("bound %d: error %q does not name the bound", tc.max, err)
			}
			continue
		}
		if len(b) > tc.max {
			t.Errorf("bound %d: a line of %d bytes", tc.max, len(b))
		}
		if hasPrompt := bytes.Contains(b, []byte(`"request_prompt"`)); hasPrompt != tc.wantPrompt {
			t.Errorf("bound %d (whole line %d): prompt kept %v, want %v", tc.max, whole, hasPrompt, tc.wantPrompt)
		}
	}
}

// TestGradedRecord: a graded record keeps its verdict and 16 hex digits
// of its answer's SHA-256 through a file; an answer hash a file holds
// that Graded could not have written is dropped when clamped, refused
// when read.
func TestGradedRecord(t *testing.T) {
	r := Record{Sent: 1, Done: 5}
	r.Graded(false, "B")
	if r.Correct == nil || *r.Correct || r.AnswerHash != "df7e70e5021544f4" { // sha256("B")
		t.Fatalf("%v %q", r.Correct, r.AnswerHash)
	}
	if got := writeRead(t, &r); got.Correct == nil || *got.Correct || got.AnswerHash != r.AnswerHash {
		t.Errorf("read back %v %q", got.Correct, got.AnswerHash)
	}
	for _, bad := range []string{"xyz", "df7e70e5021544f", "df7e70e5021544f4aa", "zz7e70e5021544f4"} {
		b := Record{V: SchemaVersion, Sent: 1, Done: 5, AnswerHash: bad}
		if b.validate() == nil {
			t.Errorf("answer hash %q taken", bad)
		}
		b.Clamp()
		if b.AnswerHash != "" || b.Clamped != "answer hash" {
			t.Errorf("answer hash %q clamped to %q (%q)", bad, b.AnswerHash, b.Clamped)
		}
	}
}

// TestHTTPPhasesHeld: every HTTP phase a file holds is held to 0 and up:
// a negative one is refused when read and zeroed when clamped.
func TestHTTPPhasesHeld(t *testing.T) {
	for _, name := range []string{"blocked", "dns", "connecting", "tls_handshaking", "waiting", "receiving"} {
		r := Record{V: SchemaVersion, Sent: 1, Done: 5, HTTP: &HTTPPhases{}}
		r.HTTP.each(func(n string, ns *int64) {
			if n == name {
				*ns = -1
			}
		})
		if r.validate() == nil {
			t.Errorf("a negative %s taken", name)
		}
		r.Clamp()
		if times, _ := r.HTTPPhaseTimes(); times != [len(HTTPPhaseNames)]int64{} || r.Clamped != "http phases" {
			t.Errorf("%s clamped to %v (%q)", name, times, r.Clamped)
		}
	}
}
