package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// TestReplayPrompts: each request gets a prompt of its input length (in
// words, a token each here) whose blocks are the same text wherever their
// ids are, a budget of its output length, and its trace reference with the
// tokens an earlier request's blocks could give it.
func TestReplayPrompts(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 25, "output_length": 3, "hash_ids": [1, 2, 3]}
{"timestamp": 5, "input_length": 30, "output_length": 4, "hash_ids": [1, 2, 4]}
{"timestamp": 9, "input_length": 12, "output_length": 5, "hash_ids": [5, 2]}
`
	rd, err := NewReader(strings.NewReader(in), "t", Options{Format: FormatMooncake})
	if err != nil {
		t.Fatal(err)
	}
	rd.opts.Speed = 1
	// blocks of 10 tokens, to keep the test small
	r := NewReplay(&blockReader{rd}, workload.Synthetic{Seed: 3})
	var items []workload.Item
	i := 0
	for a := range r.Arrivals(0) {
		if want := []time.Duration{0, 5 * time.Millisecond, 9 * time.Millisecond}[i]; a.At != want || a.Rate != 0 {
			t.Errorf("entry %d at %v, rate %v; want %v, none", i, a.At, a.Rate, want)
		}
		items = append(items, r.Item(i, false))
		i++
	}
	if err := r.Err(); err != nil || len(items) != 3 {
		t.Fatalf("%d items, %v", len(items), err)
	}
	words := func(s string) []string { return strings.Fields(s) }
	for i, want := range []int{25, 30, 12} {
		if n := len(words(items[i].Prompt)); n != want {
			t.Errorf("prompt %d: %d words, want %d", i, n, want)
		}
		if items[i].MaxTokens != []int{3, 4, 5}[i] || items[i].Trace == nil || items[i].Trace.InputTokens != want {
			t.Errorf("item %d: %+v", i, items[i])
		}
	}
	a, b, c := words(items[0].Prompt), words(items[1].Prompt), words(items[2].Prompt)
	if strings.Join(a[:20], " ") != strings.Join(b[:20], " ") || strings.Join(a[20:], " ") == strings.Join(b[20:25], " ") {
		t.Errorf("blocks 1, 2 shared and 3, 4 not:\n%v\n%v", a, b)
	}
	if strings.Join(c[10:], " ") != strings.Join(a[10:12], " ") || c[0] == a[0] && c[1] == a[1] && c[2] == a[2] {
		t.Errorf("block 2 is the same text at another place; block 5 is its own:\n%v\n%v", a, c)
	}
	// reuse stops at the first new block: 20, then 0 (block 5 is new)
	if got := []int{items[0].Trace.ReusedTokens, items[1].Trace.ReusedTokens, items[2].Trace.ReusedTokens}; got[0] != 0 || got[1] != 20 || got[2] != 0 {
		t.Errorf("reused tokens %v, want [0 20 0]", got)
	}
	if r.Item(7, false).MaxTokens != 1 {
		t.Error("an item never scheduled is not the smallest request")
	}
}

// blockReader gives a reader's entries with blocks of 10 tokens.
type blockReader struct{ *Reader }

func (b *blockReader) Next(e *Entry) error {
	err := b.Reader.Next(e)
	e.BlockTokens = 10
	return err
}

// TestReplaySendsKeptPrompts: a record that kept its prompt (proxy
// --record-prompts) is replayed with that prompt, not with words.
func TestReplaySendsKeptPrompts(t *testing.T) {
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	w.Write(&record.Record{V: record.SchemaVersion, T0: 1e18, First: 1, Last: 2, Done: 2, PromptTokens: 9, OutputTokens: 4,
		RequestPrompt: json.RawMessage(`[{"role":"system","content":[{"type":"text","text":"be brief"}]},{"role":"user","content":"hello there"}]`)})
	w.Flush()
	rd, err := NewReader(&buf, "r", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewReplay(rd, workload.Synthetic{Seed: 1})
	if _, ok := r.next(); !ok {
		t.Fatal(r.Err())
	}
	it := r.Item(0, false)
	if len(it.Messages) != 2 || it.Messages[0].Content != "be brief" || it.Messages[1].Content != "hello there" || it.MaxTokens != 4 || it.Prompt != "" {
		t.Errorf("item %+v", it)
	}
}

// TestReplayProfile: a replay is a finite shape, so it needs no count or
// duration, but it is read once at the trace's own times: no warm-up,
// no sessions.
func TestReplayProfile(t *testing.T) {
	r := NewReplay(&blockReader{}, workload.Synthetic{Seed: 1})
	if err := (load.Profile{Shape: r}).Validate(); err != nil {
		t.Errorf("a bare replay refused: %v", err)
	}
	for name, p := range map[string]load.Profile{
		"warm-up":  {Shape: r, Warmup: 1},
		"sessions": {Shape: r, Sessions: load.Sessions{Turns: 2}},
	} {
		if p.Validate() == nil {
			t.Errorf("a replay with %s accepted", name)
		}
	}
}

// TestOptionsCheck: each option out of range is an OptionError naming it
// as the command's --trace-NAME flag does; the zero options are taken.
func TestOptionsCheck(t *testing.T) {
	if err := (Options{}).Check(); err != nil {
		t.Errorf("the zero options refused: %v", err)
	}
	for option, o := range map[string]Options{
		"format":           {Format: "csv"},
		"speed":            {Speed: -1},
		"window":           {From: 5 * time.Second, To: 2 * time.Second},
		"max-input-tokens": {MaxInputTokens: -3},
		"input-scale":      {InputScale: math.Inf(1)},
		"context":          {Context: -1},
		"shard":            {ShardI: 2, ShardN: 2},
	} {
		var bad *OptionError
		if err := o.Check(); !errors.As(err, &bad) || bad.Option != option {
			t.Errorf("%+v: %v, want an error of option %s", o, err, option)
		}
		if _, err := NewReader(strings.NewReader(""), "t", o); err == nil {
			t.Errorf("%+v: a reader made", o)
		}
	}
}
