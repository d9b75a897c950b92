package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
	max int // MaxLine, smaller in tests
}

func (e *lineEncoder) init() {
	e.max = MaxLine
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
}

// line encodes r as one line, '\n' included, valid until the next call:
// a line every reader reads (r is clamped first, and what makes it longer
// than MaxLine dropped), or an error.
func (e *lineEncoder) line(r *Record) ([]byte, error) {
	if r.V == 0 {
		r.V = SchemaVersion
	}
	r.Clamp()
	if err := e.encode(r); err != nil {
		return nil, err
	}
	if e.buf.Len() > e.max {
		// what no figure needs goes first: the prompt kept for replays,
		// its fingerprint, and texts of any length
		r.RequestPrompt, r.Prefix = nil, nil
		r.Model, r.URL, r.Step, r.ResponseID = cut(r.Model), cut(r.URL), cut(r.Step), cut(r.ResponseID)
		if r.Error != nil {
			r.Error.Message = cut(r.Error.Message)
		}
		r.Clamped = strings.TrimPrefix(r.Clamped+", line length", ", ")
		if err := e.encode(r); err != nil {
			return nil, err
		}
		if e.buf.Len() > e.max {
			return nil, fmt.Errorf("encoding record %d: %d bytes, longer than the %d a reader takes", r.Seq, e.buf.Len(), e.max)
		}
	}
	return e.buf.Bytes(), nil
}

func (e *lineEncoder) encode(r *Record) error {
	e.buf.Reset()
	if err := e.enc.Encode(r); err != nil { // Encode ends the line with '\n'
		return fmt.Errorf("encoding record %d: %w", r.Seq, err)
	}
	return nil
}

// cut shortens a text to what a report shows, as valid UTF-8 (a cut
// may fall within a character; a server's bytes may be none).
func cut(s string) string {
	const keep = 4096
	return strings.ToValidUTF8(s[:min(len(s), keep)], "")
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
