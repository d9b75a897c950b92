//go:build !unix

// Package procfd says how many more files this process may open: each
// stream a run holds is a connection, and each past the limit fails to
// connect.
package procfd

// Free is not known on this system.
func Free() (free, limit int, ok bool) { return 0, 0, false }

// Ceiling is not known on this system.
func Ceiling() (most int, ok bool) { return 0, false }
