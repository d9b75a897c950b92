//go:build unix

// Package proccpu reads the CPU time this process has used, user and
// system together, so a run can tell when its own client was busy.
package proccpu

import (
	"syscall"
	"time"
)

// Used is the process's CPU time so far; ok is false where the system
// does not say.
func Used() (used time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
