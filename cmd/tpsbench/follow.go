package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

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
