// Package fileread reads a whole file into memory with a bound, so that a
// wrong path (a device such as /dev/zero, a pipe that never ends, a huge
// file) fails with a message instead of exhausting memory.
package fileread

import (
	"fmt"
	"io"
	"os"
)

// AtMost returns the contents of path, or an error when it cannot be read
// or holds more than limit bytes.
func AtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %s", path, size(limit))
	}
	return data, nil
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
