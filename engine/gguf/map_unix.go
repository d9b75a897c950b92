//go:build unix

package gguf

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of fd read-only; release unmaps them.
func mapFile(fd *os.File, size int) (data []byte, release func() error, err error) {
	data, err = syscall.Mmap(int(fd.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
