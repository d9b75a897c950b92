//go:build !linux

// Package procmem reads the most memory this process held resident over a
// span, so a run can say what its client took at thousands of streams.
package procmem

// ResetPeak is not possible on this system.
func ResetPeak() bool { return false }

// Peak is not known on this system.
func Peak() (int64, bool) { return 0, false }
