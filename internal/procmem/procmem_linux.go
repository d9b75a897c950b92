// Package procmem reads the most memory this process held resident over a
// span, so a run can say what its client took at thousands of streams.
package procmem

import (
	"bytes"
	"os"
	"strconv"
)

// ResetPeak begins a span: Peak is the most held from now on. It is false
// where the system does not allow it (a read-only /proc), and Peak then
// says the most held since the process began.
func ResetPeak() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// Peak is the most memory the process has held resident (bytes) since
// ResetPeak; ok is false where the system does not say.
func Peak() (bytesHeld int64, ok bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	return peakOf(status)
}

// peakOf reads the VmHWM line of a /proc/PID/status ("VmHWM:   2188 kB").
func peakOf(status []byte) (int64, bool) {
	for line := range bytes.Lines(status) {
		rest, found := bytes.CutPrefix(line, []byte("VmHWM:"))
		if !found {
			continue
		}
		kb, unit, _ := bytes.Cut(bytes.TrimSpace(rest), []byte(" "))
		n, err := strconv.ParseInt(string(kb), 10, 64)
		if err != nil || n < 0 || string(unit) != "kB" || n > 1<<43 {
			return 0, false
		}
		return n << 10, true
	}
	return 0, false
}
