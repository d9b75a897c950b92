package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Header is a run's own line in a records file, written before its
// records: what a report of the records alone needs that no record holds
// (the tool that measured, what every request carried besides its
// prompt, the targets the run checked). Readers keep it apart from the
// records (Reader.Headers); a file without one is read as ever.
type Header struct {
	Run      string          `json:"run"`               // the run id its records carry
	Tpsbench string          `json:"tpsbench"`          // the version that measured
	Commit   string          `json:"commit,omitempty"`  // its source's commit, when built from a checkout
	Go       string          `json:"go,omitempty"`      // the Go it was built with
	Sent     map[string]any  `json:"sent,omitempty"`    // what every request carried besides its prompt
	Targets  json.RawMessage `json:"targets,omitempty"` // the run's targets (metrics.Targets, as JSON)
}

// headerLine is how a Header is written: one object whose first and only
// key is "header", which tells it from a record at a glance.
type headerLine struct {
	Header *Header `json:"header"`
}

var headerPrefix = []byte(`{"header":`)

// WriteHeader writes a run's header line.
func (w *Writer) WriteHeader(h Header) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, err := json.Marshal(headerLine{&h})
	if err != nil {
		return fmt.Errorf("encoding the run's header: %w", err)
	}
	if len(b) > MaxLine {
		return fmt.Errorf("the run's header: %d bytes, longer than the %d a reader takes", len(b), MaxLine)
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing the run's header: %w", err)
	}
	return nil
}

// IsHeader says whether a line of a records file is a run's header line.
func IsHeader(line []byte) bool { return bytes.HasPrefix(line, headerPrefix) }

// decodeHeader parses a header line.
func (rd *Reader) decodeHeader(line []byte) error {
	var h headerLine
	if err := json.Unmarshal(line, &h); err != nil || h.Header == nil {
		return fmt.Errorf("%s:%d: not a run's header: %v", rd.name, rd.line, err)
	}
	if len(rd.headers) < maxHeaders {
		rd.headers = append(rd.headers, *h.Header)
	}
	return nil
}

// maxHeaders bounds the headers a reader keeps: a run writes one, a merge
// of shards one a shard.
const maxHeaders = 4096

// Headers are the run headers read so far, in the order of the file.
func (rd *Reader) Headers() []Header { return rd.headers }

// LeadingHeaders reads the run headers at the head of r, stopping at its
// first line that is not one: a run's records file begins with its own,
// so a report knows its targets before it counts a record.
func LeadingHeaders(r io.Reader, name string) []Header {
	rd := NewReader(r, name)
	for {
		line, complete, err := rd.readLine()
		if err != nil {
			break
		}
		rd.line++
		if rd.line == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if !complete || !IsHeader(line) || rd.decodeHeader(line) != nil {
			break
		}
	}
	return rd.headers
}
