//go:build !unix

// Package proccpu reads the CPU time this process has used, user and
// system together, so a run can tell when its own client was busy.
package proccpu

import "time"

// Used is not known on this system.
func Used() (time.Duration, bool) { return 0, false }
