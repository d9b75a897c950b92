//go:build unix

package procfd

import (
	"os"
	"syscall"
	"testing"
)

// TestFreeCountsOpenFiles: the limit is the kernel's, and each file
// opened takes one from what is free.
func TestFreeCountsOpenFiles(t *testing.T) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Skip("no RLIMIT_NOFILE here:", err)
	}
	before, limit, ok := Free()
	if !ok {
		t.Fatal("Free says nothing where getrlimit answers")
	}
	if want := int(min(rl.Cur, 1<<30)); limit != want {
		t.Errorf("limit %d, want RLIMIT_NOFILE's %d", limit, want)
	}
	if before <= 0 || before >= limit {
		t.Errorf("free %d of %d: a test process holds some files, and may open more", before, limit)
	}
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for range 5 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if after, _, _ := Free(); after != before-5 {
		t.Errorf("free %d after opening 5 files, want %d", after, before-5)
	}
}

// TestCeiling: where the kernel says how many files a process may open
// at most, that is at least the limit this one has.
func TestCeiling(t *testing.T) {
	most, ok := Ceiling()
	if !ok {
		if _, err := os.Stat("/proc/sys/fs/nr_open"); err == nil {
			t.Fatal("fs.nr_open is there, and Ceiling says nothing")
		}
		t.Skip("no fs.nr_open here")
	}
	if _, limit, _ := Free(); most < limit {
		t.Errorf("ceiling %d below this process's limit %d", most, limit)
	}
}
