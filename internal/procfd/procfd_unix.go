//go:build unix

// Package procfd says how many more files this process may open: each
// stream a run holds is a connection, and each past the limit fails to
// connect.
package procfd

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Free is how many more files this process may open now, and its limit
// (RLIMIT_NOFILE, which Go raised to the hard limit when it started);
// ok is false where the system does not say.
func Free() (free, limit int, ok bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, 0, false
	}
	const most = 1 << 30 // RLIM_INFINITY, or as good as
	limit = int(min(rl.Cur, most))
	return limit - open(), limit, true
}

// open counts the files open now: the entries of the process's own
// descriptor folder, less the one its listing holds. Where there is none
// it says 0, and Free is what the limit allows.
func open() int {
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		f, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err == nil && len(names) > 0 {
			return len(names) - 1
		}
	}
	return 0
}

// Ceiling is the most files any one process may open here, whatever its
// limit is raised to (Linux's fs.nr_open); ok is false where the system
// does not say.
func Ceiling() (most int, ok bool) {
	b, err := os.ReadFile("/proc/sys/fs/nr_open")
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil && n > 0
}
