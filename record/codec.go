package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// Writer appends records to a JSONL stream, one record a line. It is safe for
// concurrent use. Each record is written whole or not at all as far as the
// underlying writer allows, so a killed run leaves at most one partial line.
type Writer struct {
	mu sync.Mutex
	w  *bufio.Writer
	lineEncoder
}

// NewWriter returns a Writer on w. Call Flush to push buffered lines out.
func NewWriter(w io.Writer) *Writer {
	rw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	rw.lineEncoder.init()
	return rw
}

// lineEncoder encodes records as lines of the records format, reusing
// its buffer.
type lineEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func (e *lineEncoder) init() {
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
}

// line encodes r as one line, '\n' included, valid until the next call.
func (e *lineEncoder) line(r *Record) ([]byte, error) {
	e.buf.Reset()
	if r.V == 0 {
		r.V = SchemaVersion
	}
	if err := e.enc.Encode(r); err != nil { // Encode ends the line with '\n'
		return nil, fmt.Errorf("encoding record %d: %w", r.Seq, err)
	}
	return e.buf.Bytes(), nil
}

// Write appends one record.
func (w *Writer) Write(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	line, err := w.line(r)
	if err != nil {
		return err
	}
	if _, err := w.w.Write(line); err != nil {
		return fmt.Errorf("writing record: %w", err)
	}
	return nil
}

// Flush writes buffered records to the underlying writer.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Flush()
}

// MaxTokens bounds every token count a record holds (output, prompt,
// usage, a chunk's): no request generates a billion tokens, and with the
// bound, sums over billions of records cannot overflow.
const MaxTokens = 1 << 30

// maxStamp bounds stamps (73 years in ns) and maxT0 the epoch (year 2116),
// so that T0 + stamp cannot overflow int64.
const (
	maxStamp = 1 << 61
	maxT0    = 1 << 62
	// a request is retried once for each pooled connection found closed
	// (client.HTTP), never more than a pool holds
	maxRetries = 1 << 20
)

// validate rejects records whose figures would be nonsense.
func (r *Record) validate() error {
	if r.OutputTokens < 0 || r.PromptTokens < 0 || r.UsageTokens < 0 || r.MaxTokens < 0 {
		return fmt.Errorf("record %d: negative token count", r.Seq)
	}
	if r.Retries < 0 || r.Retries > maxRetries {
		return fmt.Errorf("record %d: %d retries out of range", r.Seq, r.Retries)
	}
	if r.TokenizerTokens < 0 || r.TokenizerTokens > MaxTokens {
		return fmt.Errorf("record %d: tokenizer count %d out of range", r.Seq, r.TokenizerTokens)
	}
	if r.OutputTokens > MaxTokens || r.PromptTokens > MaxTokens || r.UsageTokens > MaxTokens || r.MaxTokens > MaxTokens {
		return fmt.Errorf("record %d: a token count over %d", r.Seq, MaxTokens)
	}
	if r.ReasoningTokens < 0 || r.ToolCallTokens < 0 || r.ReasoningTokens > MaxTokens || r.ToolCallTokens > MaxTokens ||
		r.ReasoningTokens+r.ToolCallTokens > r.OutputTokens {
		return fmt.Errorf("record %d: %d reasoning and %d tool-call tokens do not fit in %d output tokens", r.Seq, r.ReasoningTokens, r.ToolCallTokens, r.OutputTokens)
	}
	if t := r.Trace; t != nil && (t.Line < 0 || t.Offset < 0 || t.Offset > maxStamp || t.InputTokens < 0 || t.InputTokens > MaxTokens ||
		t.OutputTokens < 0 || t.OutputTokens > MaxTokens || t.ReusedTokens < 0 || t.ReusedTokens > t.InputTokens) {
		return fmt.Errorf("record %d: trace reference %+v out of range", r.Seq, *t)
	}
	if p := r.Prefix; p != nil && (p.BlockBytes < 1 || p.Bytes < 0 || len(p.Blocks) > p.Bytes/p.BlockBytes) {
		return fmt.Errorf("record %d: prefix of %d blocks of %d bytes in %d bytes", r.Seq, len(p.Blocks), p.BlockBytes, p.Bytes)
	}
	if r.T0 < 0 || r.T0 > maxT0 {
		return fmt.Errorf("record %d: t0 %d is not a time since 1970 before 2116", r.Seq, r.T0)
	}
	for _, st := range [...]int64{r.Scheduled, r.Sent, r.First, r.Last, r.Done} {
		if st < -maxStamp || st > maxStamp {
			return fmt.Errorf("record %d: stamp %d is out of range", r.Seq, st)
		}
	}
	for i, c := range r.Chunks {
		// chunks are stamped after sent, and before done
		if c.At < 0 || c.At > maxStamp || (r.Done >= r.Sent && r.Sent+c.At > r.Done) {
			return fmt.Errorf("record %d: chunk %d at %d ns after sent is outside the request (%d ns long)", r.Seq, i, c.At, r.Done-r.Sent)
		}
		if c.Tokens < 0 || c.Tokens > MaxTokens {
			return fmt.Errorf("record %d: chunk %d carries %d tokens", r.Seq, i, c.Tokens)
		}
	}
	if r.Error == nil {
		if r.Done < r.Sent || (r.OutputTokens > 0 && (r.First < r.Sent || r.Last < r.First)) {
			return fmt.Errorf("record %d: stamps out of order (sent %d, first %d, last %d, done %d)", r.Seq, r.Sent, r.First, r.Last, r.Done)
		}
	}
	for i, at := range r.OtherEvents {
		if at < 0 || at > maxStamp || (r.Done >= r.Sent && r.Sent+at > r.Done) || (i > 0 && at < r.OtherEvents[i-1]) {
			return fmt.Errorf("record %d: other event %d at %d ns after sent is outside the request or out of order", r.Seq, i, at)
		}
	}
	if len(r.OtherEvents) > MaxOtherEvents {
		return fmt.Errorf("record %d: %d other events, more than %d", r.Seq, len(r.OtherEvents), MaxOtherEvents)
	}
	for i := 1; i < len(r.Chunks); i++ {
		if r.Chunks[i].At < r.Chunks[i-1].At {
			return fmt.Errorf("record %d: chunk %d arrives before chunk %d", r.Seq, i, i-1)
		}
	}
	return nil
}
