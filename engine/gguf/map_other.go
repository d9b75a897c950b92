//go:build !unix

package gguf

import "os"

// mapFile reads the file into memory where the system has no mmap
// (Windows).
func mapFile(fd *os.File, size int) (data []byte, release func() error, err error) {
	return readWhole(fd, size)
}
