package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Writer appends records to a JSONL stream, one record a line. It is safe for
// concurrent use. Each record is written whole or not at all as far as the
// underlying writer allows, so a killed run leaves at most one partial line.
type Writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// NewWriter returns a Writer on w. Call Flush to push buffered lines out.
func NewWriter(w io.Writer) *Writer {
	rw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	rw.enc = json.NewEncoder(&rw.buf)
	rw.enc.SetEscapeHTML(false)
	return rw
}

// Write appends one record.
func (w *Writer) Write(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Reset()
	if r.V == 0 {
		r.V = SchemaVersion
	}
	if err := w.enc.Encode(r); err != nil { // Encode ends the line with '\n'
		return fmt.Errorf("encoding record %d: %w", r.Seq, err)
	}
	if _, err := w.w.Write(w.buf.Bytes()); err != nil {
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

// MaxLine bounds one record line; a record with a million chunks stays
// under it.
const MaxLine = 256 << 20

// ErrPartialLine is returned (wrapped) by Reader.Next for a last line that
// ends without a newline and does not parse: what a killed writer leaves.
var ErrPartialLine = errors.New("partial last line")

// Reader decodes records from a JSONL stream without holding more than one
// line in memory.
type Reader struct {
	r    *bufio.Reader
	name string
	line int
	long []byte
}

// NewReader reads records from r; name is used in error messages.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 1<<20), name: name}
}

// Next decodes the next record into rec, returning io.EOF at the end. Blank
// lines are skipped. Errors name the file and line.
func (rd *Reader) Next(rec *Record) error {
	for {
		line, complete, err := rd.readLine()
		if err != nil {
			return err
		}
		rd.line++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			if !complete {
				return io.EOF
			}
			continue
		}
		*rec = Record{}
		if err := json.Unmarshal(line, rec); err != nil {
			if !complete {
				return fmt.Errorf("%s:%d: %w (%d bytes, ignored): %v", rd.name, rd.line, ErrPartialLine, len(line), err)
			}
			return fmt.Errorf("%s:%d: not a record: %w", rd.name, rd.line, err)
		}
		if rec.V < 1 || rec.V > SchemaVersion {
			return fmt.Errorf("%s:%d: record schema version %d is not one this tpsbench reads (1 to %d)", rd.name, rd.line, rec.V, SchemaVersion)
		}
		if err := rec.validate(); err != nil {
			return fmt.Errorf("%s:%d: %w", rd.name, rd.line, err)
		}
		return nil
	}
}

// readLine returns the next line without its newline, and whether it ended
// with one.
func (rd *Reader) readLine() ([]byte, bool, error) {
	rd.long = rd.long[:0]
	for {
		frag, err := rd.r.ReadSlice('\n')
		switch {
		case err == nil:
			if len(rd.long) == 0 {
				return frag[:len(frag)-1], true, nil
			}
			rd.long = append(rd.long, frag[:len(frag)-1]...)
			return rd.long, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			rd.long = append(rd.long, frag...)
			if len(rd.long) > MaxLine {
				return nil, false, fmt.Errorf("%s:%d: line longer than %d bytes", rd.name, rd.line+1, MaxLine)
			}
		case errors.Is(err, io.EOF):
			rd.long = append(rd.long, frag...)
			if len(rd.long) == 0 {
				return nil, false, io.EOF
			}
			return rd.long, false, nil
		default:
			return nil, false, fmt.Errorf("reading %s: %w", rd.name, err)
		}
	}
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
)

// validate rejects records whose figures would be nonsense.
func (r *Record) validate() error {
	if r.OutputTokens < 0 || r.PromptTokens < 0 || r.UsageTokens < 0 || r.MaxTokens < 0 {
		return fmt.Errorf("record %d: negative token count", r.Seq)
	}
	if r.OutputTokens > MaxTokens || r.PromptTokens > MaxTokens || r.UsageTokens > MaxTokens || r.MaxTokens > MaxTokens {
		return fmt.Errorf("record %d: a token count over %d", r.Seq, MaxTokens)
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
	for i := 1; i < len(r.Chunks); i++ {
		if r.Chunks[i].At < r.Chunks[i-1].At {
			return fmt.Errorf("record %d: chunk %d arrives before chunk %d", r.Seq, i, i-1)
		}
	}
	return nil
}
