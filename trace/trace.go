// Package trace reads request traces for replay: when each request of a
// production log arrived, how long its prompt and its answer were, and
// which prompt blocks it shared with others. It reads Mooncake's JSONL
// traces (the format AIPerf and inference-perf replay), BurstGPT's CSV
// (Azure's ChatGPT and GPT-4 logs, vLLM's burstgpt dataset) and tpsbench's
// own records (from `run` or `proxy`), streaming: a trace of a million
// requests is never held whole.
package trace

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// Entry is one request of a trace.
type Entry struct {
	Index        int           // its place among the entries read, in arrival order, from 0
	Line         int           // its line in the file, for errors and records
	Offset       time.Duration // its arrival after the trace's first request
	InputTokens  int
	OutputTokens int
	// Inputs, for a request that generated nothing (a record of an
	// embeddings or rerank request), are its inputs: InputTokens are
	// theirs together, and OutputTokens 0.
	Inputs int
	// AudioSeconds is the length of the audio a record's request sent
	// (a transcription's): a replay sends audio of that length again.
	AudioSeconds float64
	// Blocks are its prompt's leading blocks of BlockTokens tokens each,
	// by id: requests whose blocks have equal ids share that prompt
	// prefix (Mooncake's hash_ids; the proxy's prefix fingerprints).
	Blocks      []uint64
	BlockTokens int
	// Request is the prompt as it was sent (messages or a prompt, as
	// JSON), when the trace kept it (proxy --record-prompts): a replay
	// sends it again instead of words of its length.
	Request json.RawMessage
}

// Formats a trace file can be in.
const (
	FormatAuto     = "auto"     // told apart by the first line
	FormatMooncake = "mooncake" // {"timestamp": ms, "input_length", "output_length", "hash_ids"}
	FormatRecords  = "records"  // tpsbench records: arrival, prompt and output tokens, prefix
	// FormatBurstGPT is BurstGPT's CSV: Timestamp (s), Model, Request
	// tokens, Response tokens, Total tokens, Log Type
	FormatBurstGPT = "burstgpt"
)

// Formats lists the formats Options.Format accepts.
var Formats = []string{FormatAuto, FormatMooncake, FormatRecords, FormatBurstGPT}

// MooncakeBlockTokens is the tokens of a Mooncake hash id's block.
const MooncakeBlockTokens = 512

// Options choose what of a trace is replayed, and how fast.
type Options struct {
	Format string // one of Formats; "" is auto
	// From and To keep the entries that arrived in [From, To) of the
	// trace (To 0: to its end), their offsets then counted from From.
	From, To time.Duration
	// Speed divides every offset: 2 replays the trace twice as fast.
	// 0 is 1.
	Speed float64
	// ShardI of ShardN keeps every ShardN-th entry from the ShardI-th
	// (ShardN 0: all), so that N load generators replay one trace
	// together, each request once, each at its own time.
	ShardI, ShardN int
	// InputScale multiplies every input length (and its prefix blocks'
	// length), so that a trace of long prompts can be replayed on a
	// server of a shorter context; 0 is 1.
	InputScale float64
	// MaxInputTokens clips longer input lengths to it (Stats.Clipped
	// counts them); 0 is workload.MaxPromptTokens, the longest prompt a
	// replay makes.
	MaxInputTokens int
	// Context, when known (the server's max_model_len), clips each
	// entry's input so that input and output fit in it, and the output
	// to what a one-token prompt leaves (counted as clipped): a trace of
	// 6,909-token prompts on a 4,096-token engine failed 81 of 113.
	Context int
}

// withDefaults is opts with its zero values given their meaning.
func (opts Options) withDefaults() Options {
	if opts.Speed == 0 {
		opts.Speed = 1
	}
	if opts.MaxInputTokens == 0 {
		opts.MaxInputTokens = workload.MaxPromptTokens
	}
	if opts.InputScale == 0 {
		opts.InputScale = 1
	}
	return opts
}

// OptionError is what is wrong with one of Options, named as the
// command's --trace-NAME flag names it: format, speed, window,
// input-scale, max-input-tokens, context or shard.
type OptionError struct {
	Option, Value, Want string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("trace %s %s: %s", e.Option, e.Value, e.Want)
}

// Check says what is wrong with the options, if anything (an
// *OptionError).
func (opts Options) Check() error {
	o := opts.withDefaults()
	bad := func(option, want string, value any) error {
		return &OptionError{Option: option, Value: fmt.Sprint(value), Want: want}
	}
	switch {
	case o.Format != "" && !slices.Contains(Formats, o.Format):
		return bad("format", "want "+strings.Join(Formats, ", "), strconv.Quote(o.Format))
	case !(o.Speed > 0) || o.Speed > 1e6:
		return bad("speed", "want a factor above 0, e.g. 2 for twice as fast", o.Speed)
	case o.From < 0 || o.To < 0 || (o.To > 0 && o.To <= o.From):
		return bad("window", "want FROM before TO, neither negative", fmt.Sprintf("%v-%v", o.From, o.To))
	case o.MaxInputTokens < 1 || o.MaxInputTokens > workload.MaxPromptTokens:
		return bad("max-input-tokens", fmt.Sprintf("want 1 to %d tokens (0: %d)", workload.MaxPromptTokens, workload.MaxPromptTokens), o.MaxInputTokens)
	case !(o.InputScale > 0) || o.InputScale > 1e6:
		return bad("input-scale", "want a factor above 0, e.g. 0.5 for prompts half as long", o.InputScale)
	case o.Context < 0:
		return bad("context", "want 0 (unknown) or more", o.Context)
	case o.ShardN < 0 || (o.ShardN > 0 && (o.ShardI < 0 || o.ShardI >= o.ShardN)):
		return bad("shard", "want 0 <= index < count", fmt.Sprintf("%d/%d", o.ShardI, o.ShardN))
	}
	return nil
}

// reorderWindow is how many entries are read ahead to put them in arrival
// order: a records file is written as requests end, not as they arrive.
// An entry that arrived earlier than those already given out by more
// than the window holds is given out at once (Stats.Late counts them).
const reorderWindow = 1 << 16

// Reader gives a trace's entries in arrival order.
type Reader struct {
	name   string
	format string
	opts   Options
	src    interface {
		next(e *Entry) (arrival int64, err error) // io.EOF at the end
	}
	pending entryHeap
	srcDone bool
	seq     int // entries pushed, to keep equal arrivals in file order
	started bool
	first   int64 // the first arrival given out, in the source's ns
	last    time.Duration
	index   int // entries read, in arrival order (before window and shard)
	stats   Stats
}

// Format is the trace's format, as given or as told by its first line.
func (rd *Reader) Format() string { return rd.format }

// Stats counts what a Reader skipped or moved.
type Stats struct {
	Entries int // given out
	Skipped int // records that cannot be replayed (warm-up, no prompt count, no output count)
	Late    int // arrived before entries already given out (beyond the reorder window)
	// Clipped counts entries replayed shorter than the trace asked (an
	// input over Options.MaxInputTokens, input and output over
	// Options.Context); FirstClipped is the first one's line.
	Clipped, FirstClipped int
	// Bad counts the entries skipped as not replayable (a records file's
	// lines that are not valid records, arrivals decades after the
	// first); FirstBad says what was wrong with the first.
	Bad      int
	FirstBad error
}

// NewReader reads a trace from r; name is used in errors.
func NewReader(r io.Reader, name string, opts Options) (*Reader, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	br := bufio.NewReaderSize(r, 64<<10)
	format := opts.Format
	if format == "" || format == FormatAuto {
		var err error
		if format, err = sniff(br, name); err != nil {
			return nil, err
		}
	}
	rd := &Reader{name: name, format: format, opts: opts}
	switch format {
	case FormatMooncake:
		rd.src = newMooncake(br, name)
	case FormatRecords:
		rd.src = newRecords(br, name, &rd.stats, rd.bad)
	case FormatBurstGPT:
		src, err := newBurstGPT(br, name, &rd.stats)
		if err != nil {
			return nil, err
		}
		rd.src = src
	default:
		return nil, fmt.Errorf("trace format %q: want auto, mooncake, records or burstgpt", format)
	}
	return rd, nil
}

// sniff tells a trace's format by its first line: records begin with
// their schema version, Mooncake's lines with their fields.
func sniff(br *bufio.Reader, name string) (string, error) {
	head, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("reading %s: %w", name, err)
	}
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 {
		return "", fmt.Errorf("%s: an empty trace", name)
	}
	if line, _, _ := bytes.Cut(head, []byte("\n")); bytes.HasPrefix(line, []byte(`{"v":`)) || record.IsHeader(line) {
		return FormatRecords, nil
	} else if bytes.Contains(line, []byte(`"input_length"`)) || bytes.Contains(line, []byte(`"timestamp"`)) {
		return FormatMooncake, nil
	} else if lower := bytes.ToLower(line); bytes.Contains(lower, []byte("timestamp")) && bytes.Contains(lower, []byte("request tokens")) {
		return FormatBurstGPT, nil
	}
	return "", fmt.Errorf("%s: neither tpsbench records, a Mooncake trace (JSON lines of timestamp, input_length, output_length, hash_ids) nor BurstGPT's CSV (Timestamp, Request tokens, Response tokens)", name)
}

// Next gives the next entry in arrival order, io.EOF after the last.
func (rd *Reader) Next(e *Entry) error {
	for {
		if err := rd.fill(); err != nil {
			return err
		}
		if rd.pending.Len() == 0 {
			return io.EOF
		}
		p := heap.Pop(&rd.pending).(pendingEntry)
		if !rd.started {
			rd.started, rd.first = true, p.arrival
		}
		off := time.Duration(p.arrival - rd.first)
		if p.arrival > rd.first && (off < 0 || off > maxOffset) {
			// stamps decades apart (records' stamps reach 2^61 on
			// either side): the difference wrapped, and the entry was
			// sent at once as late
			rd.bad(fmt.Errorf("%s:%d: arrives %.0f years after the trace's first request", rd.name, p.Line, float64(uint64(p.arrival)-uint64(rd.first))/float64(365*24*time.Hour)))
			continue
		}
		if off < rd.last {
			rd.stats.Late++
			off = rd.last
		}
		rd.last = off
		idx := rd.index
		rd.index++
		if off < rd.opts.From {
			continue
		}
		if rd.opts.To > 0 && off >= rd.opts.To {
			// arrival order: nothing later is in the window
			rd.pending, rd.srcDone = nil, true
			return io.EOF
		}
		if rd.opts.ShardN > 0 && idx%rd.opts.ShardN != rd.opts.ShardI {
			continue
		}
		*e = p.Entry
		e.Index = idx
		rd.fit(e)
		e.Offset = time.Duration(float64(off-rd.opts.From) / rd.opts.Speed)
		rd.stats.Entries++
		return nil
	}
}

// fit scales an entry's input, and clips input and output to the bounds
// and the context, its prefix blocks to what the input still holds.
func (rd *Reader) fit(e *Entry) {
	o := rd.opts
	if o.InputScale != 1 {
		e.InputTokens = max(1, int(math.Round(float64(e.InputTokens)*o.InputScale)))
		if e.BlockTokens > 0 {
			e.BlockTokens = max(1, int(math.Round(float64(e.BlockTokens)*o.InputScale)))
			// a block is at least a token: those past the scaled prompt's
			// end (its last, partial, one kept) go
			if most := (e.InputTokens + e.BlockTokens - 1) / e.BlockTokens; len(e.Blocks) > most {
				e.Blocks = e.Blocks[:most]
			}
		}
	}
	in, out := min(e.InputTokens, o.MaxInputTokens), e.OutputTokens
	if o.Context > 0 {
		out = min(out, max(o.Context-1, 1))
		in = min(in, max(o.Context-out, 1))
	}
	if in == e.InputTokens && out == e.OutputTokens {
		return
	}
	if rd.stats.Clipped == 0 {
		rd.stats.FirstClipped = e.Line
	}
	rd.stats.Clipped++
	e.InputTokens, e.OutputTokens = in, out
	if e.BlockTokens > 0 && len(e.Blocks)*e.BlockTokens > e.InputTokens {
		e.Blocks = e.Blocks[:e.InputTokens/e.BlockTokens]
	}
}

// maxOffset bounds an entry's arrival after the trace's first: Mooncake's
// timestamps stop at 1e12 ms (about 30 years).
const maxOffset = time.Duration(maxTimestampMS * 1e6)

// bad counts an entry that cannot be replayed and keeps the first reason.
func (rd *Reader) bad(err error) {
	if rd.stats.Bad == 0 {
		rd.stats.FirstBad = err
	}
	rd.stats.Bad++
}

// Stats says what the reader has given out, skipped and moved so far.
func (rd *Reader) Stats() Stats { return rd.stats }

// fill reads ahead until the window is full or the source ends.
func (rd *Reader) fill() error {
	for !rd.srcDone && rd.pending.Len() < reorderWindow {
		var e Entry
		arrival, err := rd.src.next(&e)
		if errors.Is(err, io.EOF) {
			rd.srcDone = true
			break
		}
		if err != nil {
			return err
		}
		heap.Push(&rd.pending, pendingEntry{Entry: e, arrival: arrival, seq: rd.seq})
		rd.seq++
	}
	return nil
}

type pendingEntry struct {
	Entry
	arrival int64 // in the source's ns
	seq     int
}

// entryHeap orders entries by arrival, then by their order in the file.
type entryHeap []pendingEntry

func (h entryHeap) Len() int { return len(h) }
func (h entryHeap) Less(i, j int) bool {
	if h[i].arrival != h[j].arrival {
		return h[i].arrival < h[j].arrival
	}
	return h[i].seq < h[j].seq
}
func (h entryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)   { *h = append(*h, x.(pendingEntry)) }
func (h *entryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
