package record

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxLine bounds one record line, and so what reading one holds: a
// record of a million chunks takes about 15 MB.
const MaxLine = 64 << 20

// ErrPartialLine is returned (wrapped) by Reader.Next for a last line that
// ends without a newline and does not parse: what a killed writer leaves.
var ErrPartialLine = errors.New("partial last line")

// utf8BOM starts files that some editors and Windows tools save.
var utf8BOM = []byte("\uFEFF")

// Reader decodes records from a JSONL stream without holding more than one
// line in memory. Every command that reads records reads them through it,
// so they agree on what a record is: a line that decodes, has a schema
// version this tpsbench reads, and whose stamps and counts hold together.
type Reader struct {
	r    *bufio.Reader
	name string
	line int
	long []byte
	max  int // MaxLine, smaller in tests

	ctx  context.Context
	more func() bool // Follow's: may the stream still grow?
	bad  func(error) // SkipBad's: told of each line skipped

	headers []Header // the run headers read so far
}

// NewReader reads records from r; name is used in error messages.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 1<<20), name: name, max: MaxLine, ctx: context.Background()}
}

// Follow makes Next wait at the end of the stream while more says that
// the stream may still grow (a file being written: `tpsbench watch`). A
// last line without its newline is held until the rest arrives. Next
// returns ctx's error once ctx is done, even inside an endless line.
func (rd *Reader) Follow(ctx context.Context, more func() bool) {
	rd.ctx, rd.more = ctx, more
}

// SkipBad makes Next skip lines that are not valid records, and lines
// longer than MaxLine (read past without being held), telling bad of each,
// instead of returning the first as an error.
func (rd *Reader) SkipBad(bad func(error)) { rd.bad = bad }

// Next decodes the next record into rec, returning io.EOF at the end. Blank
// lines are skipped. Errors name the file and line.
func (rd *Reader) Next(rec *Record) error {
	for {
		line, complete, err := rd.readLine()
		if err != nil {
			if rd.bad != nil && errors.Is(err, errLongLine) {
				rd.bad(err)
				continue
			}
			return err
		}
		rd.line++
		if rd.line == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			if !complete {
				return io.EOF
			}
			continue
		}
		if IsHeader(line) && complete {
			if err := rd.decodeHeader(line); err != nil && rd.bad == nil {
				return err
			} else if err != nil {
				rd.bad(err)
			}
			continue
		}
		err = rd.decode(line, complete, rec)
		if err != nil && rd.bad != nil && !errors.Is(err, ErrPartialLine) {
			rd.bad(err)
			continue
		}
		return err
	}
}

// Line is the line of the record Next returned last.
func (rd *Reader) Line() int { return rd.line }

// decode parses and checks one line.
func (rd *Reader) decode(line []byte, complete bool, rec *Record) error {
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

var errLongLine = fmt.Errorf("line longer than %d bytes", MaxLine)

// maxSkipped bounds a long line SkipBad reads past (a variable: tests
// shorten it).
var maxSkipped = 1 << 30

// readLine returns the next line without its newline, and whether it ended
// with one. A line longer than MaxLine is an error once its end is reached
// (or, without SkipBad, at once); it is never held whole.
func (rd *Reader) readLine() ([]byte, bool, error) {
	rd.long = rd.long[:0]
	tooLong := false
	skipped := 0 // bytes of a long line read past
	for {
		if err := rd.ctx.Err(); err != nil {
			return nil, false, err
		}
		frag, err := rd.r.ReadSlice('\n')
		if !tooLong && len(rd.long)+len(frag) > rd.max+1 {
			tooLong, rd.long = true, rd.long[:0]
			if rd.bad == nil {
				return nil, false, fmt.Errorf("%s:%d: %w", rd.name, rd.line+1, errLongLine)
			}
		}
		if tooLong {
			// a bad record is skipped; a line without end (/dev/zero) is
			// no records file
			if skipped += len(frag); skipped > maxSkipped {
				return nil, false, fmt.Errorf("%s:%d: a line over %d bytes: not a records file", rd.name, rd.line+1, maxSkipped)
			}
		}
		if !tooLong {
			if err == nil && len(rd.long) == 0 {
				return frag[:len(frag)-1], true, nil
			}
			rd.long = append(rd.long, frag...)
		}
		switch {
		case err == nil:
			if tooLong {
				rd.line++
				return nil, false, fmt.Errorf("%s:%d: %w", rd.name, rd.line, errLongLine)
			}
			return rd.long[:len(rd.long)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			if rd.more != nil && rd.more() {
				continue // the rest of the line may yet be written
			}
			if tooLong {
				rd.line++
				return nil, false, fmt.Errorf("%s:%d: %w", rd.name, rd.line, errLongLine)
			}
			if len(rd.long) == 0 {
				return nil, false, io.EOF
			}
			return rd.long, false, nil
		default:
			return nil, false, fmt.Errorf("reading %s: %w", rd.name, err)
		}
	}
}
