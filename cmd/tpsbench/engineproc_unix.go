//go:build unix

package main

import (
	"os"
	"syscall"
)

func terminate(p *os.Process) bool { return p.Signal(syscall.SIGTERM) == nil }
