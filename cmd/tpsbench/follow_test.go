package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

func TestFollowRecords(t *testing.T) {
	var got []int
	collect := func(r *record.Record) { got = append(got, r.Seq) }

	// Whole lines, a line too long to be a record, a line that is not a
	// record, and a partial last line left for later.
	in := `{"v":1,"seq":1}` + "\n" + strings.Repeat("x", 5000) + "\n" + "not json\n" + `{"v":1,"seq":2}` + "\n" + `{"v":1,"seq":3`
	if err := followRecords(context.Background(), strings.NewReader(in), 1000, collect, func() bool { return false }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("records %v, want [1 2]", got)
	}

	// A file that grows: the partial line is completed by what comes next.
	got = nil
	var file bytes.Buffer
	file.WriteString(`{"v":1,"se`)
	waits := 0
	more := func() bool {
		waits++
		if waits == 1 {
			file.WriteString(`q":7}` + "\n")
			return true
		}
		return false
	}
	if err := followRecords(context.Background(), &file, 1000, collect, more); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != 7 {
		t.Fatalf("records %v after growth, want [7]", got)
	}
}

// TestFollowRecordsHoldsNoLongLine: 64 MB without a newline (as
// /dev/zero gives) are read past, not held.
func TestFollowRecordsHoldsNoLongLine(t *testing.T) {
	var got []int
	long := io.LimitReader(endless('x'), 64<<20)
	r := io.MultiReader(long, strings.NewReader("\n"+`{"v":1,"seq":9}`+"\n"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := followRecords(context.Background(), r, 4096, func(r *record.Record) { got = append(got, r.Seq) }, func() bool { return false }); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(got) != 1 || got[0] != 9 {
		t.Fatalf("records %v, want [9]", got)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("allocated %d MB reading a 64 MB line", alloc>>20)
	}
}

type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestFollowRecordsStops: a file without end is left when ctx is done.
func TestFollowRecordsStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var got []int
	r := io.MultiReader(strings.NewReader(`{"v":1,"seq":4}`+"\n"), endless('\n'))
	done := make(chan error)
	go func() {
		done <- followRecords(ctx, r, 1000, func(r *record.Record) { got = append(got, r.Seq) }, func() bool { return true })
	}()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestFollowTruncatedFile: a followed file emptied and written again is
// read from its start, so records after a rotation still arrive.
func TestFollowTruncatedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, []byte(`{"v":1,"seq":1}`+"\n"+`{"v":1,"seq":2}`+"\n"), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []int
	waits := 0
	more := func() bool {
		waits++
		if waits == 1 {
			// rotated: emptied, then one record shorter than what was read
			os.WriteFile(path, []byte(`{"v":1,"seq":3}`+"\n"), 0o644)
			return true
		}
		return false
	}
	if err := followRecords(context.Background(), rewinding{f}, 1000, func(r *record.Record) { got = append(got, r.Seq) }, more); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2] != 3 {
		t.Fatalf("records %v, want [1 2 3]", got)
	}
}
