package record

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// Records a client or a server made hostile: each broke a rule the
// reader holds records to, so the writer wrote a line its own reader
// refused, and one request spoiled the file for report, merge and replay.
func TestWrittenRecordsReadBack(t *testing.T) {
	cases := []struct {
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
	}
	for _, c := range cases {
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
	// a record at every bound, within the rules, is written as it is
	edge := Record{Sent: 1, Done: 5, MaxTokens: MaxTokens, PromptTokens: 4, CachedTokens: 4, Trace: &TraceRef{Offset: maxStamp, InputTokens: 3, ReusedTokens: 3},
		AudioSeconds: maxAudioSeconds, Upload: maxStamp}
	if got := writeRead(t, &edge); got.Clamped != "" || got.MaxTokens != MaxTokens || got.Trace == nil || got.AudioSeconds != maxAudioSeconds || got.Upload != maxStamp {
		t.Errorf("a record at the bounds was clamped: %q", got.Clamped)
	}
	// a record within the rules is written as it is
	rec := *sample()
	if got := writeRead(t, &rec); got.Clamped != "" || got.MaxTokens != sample().MaxTokens {
		t.Errorf("a valid record was clamped: %q", got.Clamped)
	}
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

// A line longer than a reader takes loses what no figure needs.
func TestLongLineShortened(t *testing.T) {
	r := Record{Sent: 1, Done: 5, RequestPrompt: json.RawMessage(`"` + strings.Repeat("a", MaxLine) + `"`),
		Error: &Error{Kind: KindHTTPStatus, Message: strings.Repeat("é", MaxLine)}}
	got := writeRead(t, &r)
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
