package main

import (
	"io"
	"os"
)

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
