package proccpu

import (
	"runtime"
	"testing"
	"time"
)

// TestUsedCountsWork: spinning for 50 ms of wall time on this goroutine
// adds at least most of that as CPU time, and the reading never goes back.
func TestUsedCountsWork(t *testing.T) {
	before, ok := Used()
	if !ok {
		t.Skip("no CPU time on this system")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x++
	}
	after, _ := Used()
	// a spinning thread is on a CPU unless preempted; on a shared machine
	// it may lose some of the time, so ask for a fifth of it
	if d := after - before; d < 10*time.Millisecond {
		t.Fatalf("spinning 50 ms added %v of CPU (%d loops)", d, x)
	}
}
