package procmem

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPeakOf(t *testing.T) {
	for _, c := range []struct {
		status string
		want   int64
		ok     bool
	}{
		{"Name:\tx\nVmPeak:\t 9000 kB\nVmHWM:\t    2188 kB\nVmRSS:\t 2000 kB\n", 2188 << 10, true},
		{"VmHWM:\t0 kB\n", 0, true},
		{"VmHWM:\t2188 MB\n", 0, false},
		{"VmHWM:\t-5 kB\n", 0, false},
		{"VmHWM:\tlots kB\n", 0, false},
		{"VmHWM:\t99999999999999 kB\n", 0, false},
		{"VmRSS:\t2000 kB\n", 0, false},
		{"", 0, false},
	} {
		got, ok := peakOf([]byte(c.status))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %d, %v; want %d, %v", c.status, got, ok, c.want, c.ok)
		}
	}
}

// TestPeakFollowsTheSpan: memory touched after a reset shows in the peak,
// and a reset brings the peak back down to what is held now.
func TestPeakFollowsTheSpan(t *testing.T) {
	if !ResetPeak() {
		t.Skip("this system does not let a process reset its peak")
	}
	before, ok := Peak()
	if !ok {
		t.Fatal("no peak after a reset")
	}
	const size = 64 << 20
	block := make([]byte, size)
	for i := 0; i < size; i += 4096 {
		block[i] = 1
	}
	during, _ := Peak()
	if during < before+size*3/4 {
		t.Fatalf("peak %d MB after touching %d MB from %d MB", during>>20, size>>20, before>>20)
	}
	runtime.KeepAlive(block)
	block = nil
	runtime.GC()
	debug.FreeOSMemory()
	if !ResetPeak() {
		t.Fatal("a second reset refused")
	}
	after, _ := Peak()
	if after >= during {
		t.Errorf("peak %d MB after a reset, from %d MB with %d MB given back", after>>20, during>>20, size>>20)
	}
}

func FuzzPeakOf(f *testing.F) {
	f.Add([]byte("VmHWM:\t    2188 kB\n"))
	f.Add([]byte("VmPeak:\t1 kB\nVmHWM: 7 kB"))
	f.Fuzz(func(t *testing.T, status []byte) {
		n, ok := peakOf(status)
		if ok && (n < 0 || n%1024 != 0) {
			t.Fatalf("%q: peak %d", status, n)
		}
		if !ok && n != 0 {
			t.Fatalf("%q: %d with no peak", status, n)
		}
	})
}
