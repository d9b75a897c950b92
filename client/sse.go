package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// timedReader remembers when the last read that returned bytes came back:
// the arrival time of everything that read delivered.
type timedReader struct {
	r    io.Reader
	last time.Time
	// stamp, when set, gives the arrival time of what the last Read
	// returned (a proxy stamps bytes when they came from upstream).
	stamp func() time.Time
}

func (t *timedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		if t.stamp != nil {
			t.last = t.stamp()
		} else {
			t.last = time.Now()
		}
	}
	return n, err
}

// maxEvent bounds one SSE line or event; past it the stream is malformed.
const maxEvent = 8 << 20

var errEventTooLong = fmt.Errorf("server-sent event longer than %d MiB", maxEvent>>20)

// sseReader reads server-sent events (the WHATWG format) and stamps each
// with the arrival time of the bytes that completed it. It reuses its
// buffers: the data it returns is valid until the next call.
type sseReader struct {
	tr    timedReader
	br    *bufio.Reader
	data  []byte // the current event's data lines, joined by '\n'
	hasD  bool
	event []byte // the current event's type
	long  []byte
	// start: nothing read yet (a BOM may come); afterCR: the last line
	// ended in CR, so an LF that follows ends nothing
	start, afterCR bool
}

// readers recycles sseReaders with their 4 KiB buffers: a run makes one a
// request, and allocating and zeroing the buffer each time was a tenth of
// the client's CPU at hundreds of streams.
var readers = sync.Pool{New: func() any {
	s := &sseReader{}
	s.br = bufio.NewReaderSize(&s.tr, 4<<10)
	return s
}}

// newSSEReader returns a reader of r; release it when done.
func newSSEReader(r io.Reader) *sseReader {
	s := readers.Get().(*sseReader)
	s.tr = timedReader{r: r}
	s.br.Reset(&s.tr)
	s.data, s.event, s.long = s.data[:0], s.event[:0], s.long[:0]
	s.hasD, s.start, s.afterCR = false, true, false
	return s
}

// newSSEReaderSize makes an unpooled reader with a small buffer, so that
// tests reach the paths for lines longer than the buffer.
func newSSEReaderSize(r io.Reader, size int) *sseReader {
	s := &sseReader{start: true}
	s.tr = timedReader{r: r}
	s.br = bufio.NewReaderSize(&s.tr, size)
	return s
}

// release returns the reader to the pool; it must not be used after.
func (s *sseReader) release() {
	s.tr = timedReader{}
	s.br.Reset(nil)
	if cap(s.long) > 1<<20 { // do not keep a huge line's buffer around
		s.long = nil
	}
	readers.Put(s)
}

// next returns the next event's type (empty for "message") and data, and
// when its last byte arrived. At the end of the stream it returns io.EOF; a
// partial event left at the end is dispatched first.
func (s *sseReader) next() (event, data []byte, at time.Time, err error) {
	s.data = s.data[:0]
	s.event = s.event[:0]
	s.hasD = false
	for {
		line, rerr := s.readLine()
		// an event whose data is empty (one "data:" line of nothing) is
		// not dispatched, as the SSE specification says: a server's
		// keep-alive, not a malformed answer
		if rerr != nil {
			if errors.Is(rerr, io.EOF) && s.hasD && len(s.data) > 0 {
				return s.event, s.data, s.tr.last, nil
			}
			return nil, nil, time.Time{}, rerr
		}
		if len(line) == 0 {
			if s.hasD && len(s.data) > 0 {
				return s.event, s.data, s.tr.last, nil
			}
			s.event, s.hasD = s.event[:0], false // an event with no data is dropped
			continue
		}
		if line[0] == ':' {
			continue // comment, e.g. a keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) { // no allocation: the compiler special-cases this conversion
		case "data":
			if s.hasD {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			s.hasD = true
			if len(s.data) > maxEvent {
				return nil, nil, time.Time{}, errEventTooLong
			}
		case "event":
			s.event = append(s.event[:0], value...)
		}
	}
}

// readLine returns the next line without its line ending: LF, CRLF or a
// bare CR, as the SSE specification allows. A CR ends its line at once
// (waiting for a possible LF would hold back the event); an LF right after
// it is skipped when the next line is read.
func (s *sseReader) readLine() ([]byte, error) {
	s.long = s.long[:0]
	for {
		if s.br.Buffered() == 0 {
			if _, err := s.br.Peek(1); err != nil {
				if errors.Is(err, io.EOF) && len(s.long) > 0 {
					return s.long, nil // a last line without its ending
				}
				return nil, err
			}
		}
		buf, _ := s.br.Peek(s.br.Buffered())
		if s.start {
			s.start = false
			if bytes.HasPrefix(utf8BOM, buf[:min(len(buf), len(utf8BOM))]) {
				// a byte-order mark may open the stream; it is not part
				// of the first line (whose event was lost with it)
				if b, err := s.br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
					s.br.Discard(len(utf8BOM))
					continue
				}
				buf, _ = s.br.Peek(s.br.Buffered())
			}
		}
		if s.afterCR {
			s.afterCR = false
			if buf[0] == '\n' {
				s.br.Discard(1)
				continue
			}
		}
		end := bytes.IndexByte(buf, '\n')
		inLine := buf
		if end >= 0 {
			inLine = buf[:end]
		}
		if cr := bytes.IndexByte(inLine, '\r'); cr >= 0 {
			end, s.afterCR = cr, true
		}
		if end < 0 { // no line ending buffered yet
			if len(s.long)+len(buf) > maxEvent {
				return nil, errEventTooLong
			}
			s.long = append(s.long, buf...)
			s.br.Discard(len(buf))
			continue
		}
		line := buf[:end]
		s.br.Discard(end + 1) // line stays valid until the next read
		if len(s.long) > 0 {
			if len(s.long)+len(line) > maxEvent {
				return nil, errEventTooLong
			}
			s.long = append(s.long, line...)
			return s.long, nil
		}
		return line, nil
	}
}

var utf8BOM = []byte("\uFEFF")
