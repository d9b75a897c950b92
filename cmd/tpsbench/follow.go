package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/tpsbench/tpsbench/record"
)

// followRecords reads records from r as a file grows: each whole line
// that is a record goes to onRecord; at the end of what is there, more is
// awaited while more() says so. A line longer than maxLine (no record is;
// /dev/zero's one line is endless) is skipped without being held. It
// stops when ctx is done, even in a file without end.
func followRecords(ctx context.Context, r io.Reader, maxLine int, onRecord func(*record.Record), more func() bool) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var line []byte
	skipping := false // inside a line too long to be a record
	for ctx.Err() == nil {
		piece, err := br.ReadSlice('\n')
		if !skipping && len(line)+len(piece) > maxLine {
			skipping, line = true, line[:0]
		}
		if !skipping {
			line = append(line, piece...)
		}
		switch {
		case err == nil: // the line is whole
			var rec record.Record
			if !skipping && json.Unmarshal(bytes.TrimSpace(line), &rec) == nil && rec.V >= 1 && rec.V <= record.SchemaVersion {
				onRecord(&rec)
			}
			line, skipping = line[:0], false
		case errors.Is(err, bufio.ErrBufferFull):
		case err != io.EOF:
			return err
		case !more(): // the file may grow: a partial line stays for later
			return nil
		}
	}
	return nil
}

// rewinding reads a file that may be truncated while it is followed (log
// rotation by copy and truncate, or `: > file`): at its end, a file now
// shorter than what was read of it is read again from its start.
type rewinding struct{ f *os.File }

func (r rewinding) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if n > 0 || err != io.EOF {
		return n, err
	}
	st, serr := r.f.Stat()
	off, oerr := r.f.Seek(0, io.SeekCurrent)
	if serr != nil || oerr != nil || st.Size() >= off {
		return n, err
	}
	if _, err := r.f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return r.f.Read(p)
}
