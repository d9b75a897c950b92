package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// FileWriter appends records to a file for a process that runs for months
// (the proxy): each record is one whole line in one write, written at once.
// A write that fails (a full disk) is undone by cutting the file back to
// its last whole line, so no reader ever meets half a record, and the next
// record is tried afresh: writing resumes as soon as the disk allows. Safe
// for concurrent use; one process should append to a file at a time.
type FileWriter struct {
	mu   sync.Mutex
	f    appendFile
	size int64 // where the last whole line ends
	lost int64
	lineEncoder
}

// appendFile is what FileWriter needs of an *os.File (tests fail it).
type appendFile interface {
	io.Writer
	Truncate(size int64) error
	Close() error
}

// OpenFile opens path for appending records, creating it if needed. A
// partial last line (a killed writer's) is cut away first, so that what
// follows starts on a line of its own; cut says how many bytes went. A
// file that holds something else than records (its first byte is not a
// JSON object's) is refused, never appended to or cut.
func OpenFile(path string) (w *FileWriter, cut int64, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, 0, fmt.Errorf("opening records file: %w", err)
	}
	var first [1]byte
	if n, err := f.ReadAt(first[:], 0); n == 1 && first[0] != '{' {
		f.Close()
		return nil, 0, fmt.Errorf("%s holds something other than records (JSON lines): not appending to it", path)
	} else if err != nil && !errors.Is(err, io.EOF) {
		f.Close()
		return nil, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	size, err := wholeLines(f)
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	if cut = st.Size() - size; cut > 0 {
		if err := f.Truncate(size); err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("cutting the partial last line of %s: %w", path, err)
		}
	}
	return newFileWriter(f, size), cut, nil
}

func newFileWriter(f appendFile, size int64) *FileWriter {
	w := &FileWriter{f: f, size: size}
	w.lineEncoder.init()
	return w
}

// wholeLines is the length of f up to the end of its last newline.
func wholeLines(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	end := st.Size()
	buf := make([]byte, 64<<10)
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// Write appends one record as a whole line. On failure the file is cut
// back to its last whole line and the record counts as lost.
func (w *FileWriter) Write(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	line, err := w.line(r)
	if err != nil {
		w.lost++
		return err
	}
	n, err := w.f.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.lost++
		if n > 0 {
			if terr := w.f.Truncate(w.size); terr != nil {
				return fmt.Errorf("writing record: %w (and cutting its partial line: %v)", err, terr)
			}
		}
		return fmt.Errorf("writing record: %w", err)
	}
	w.size += int64(n)
	return nil
}

// Lost is the number of records that could not be written.
func (w *FileWriter) Lost() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost
}

// Close closes the file.
func (w *FileWriter) Close() error { return w.f.Close() }
