//go:build unix

package engine

import (
	"os"
	"syscall"
)

func terminate(p *os.Process) bool { return p.Signal(syscall.SIGTERM) == nil }
