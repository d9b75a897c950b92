package record

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

const okLine = `{"v":1,"seq":%d,"sent":1,"done":2}`

func line(seq int) string { return strings.Replace(okLine, "%d", string(rune('0'+seq)), 1) + "\n" }

// readAll reads every record, returning their seqs and the error that ended.
func readAll(rd *Reader) ([]int, error) {
	var got []int
	var rec Record
	for {
		err := rd.Next(&rec)
		if err != nil {
			return got, err
		}
		got = append(got, rec.Seq)
	}
}

func TestReaderSkipsBadLines(t *testing.T) {
	// a line too long to be a record, one that is not JSON, one that a
	// report refuses (a chunk outside its request: watch once showed it as
	// a completed request), and a partial last line
	in := line(1) + strings.Repeat("x", 5000) + "\n" + "not json\n" +
		`{"v":1,"seq":5,"sent":0,"done":9,"chunks":[[-9200000000000000000,1]]}` + "\n" + line(2) + `{"v":1,"seq":3`
	rd := NewReader(strings.NewReader(in), "mem")
	rd.max = 1000
	var bad []string
	rd.SkipBad(func(err error) { bad = append(bad, err.Error()) })
	got, err := readAll(rd)
	if !errors.Is(err, ErrPartialLine) {
		t.Fatalf("ended with %v, want the partial line", err)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("records %v, want [1 2]", got)
	}
	if len(bad) != 3 || !strings.Contains(bad[0], "mem:2: line longer") || !strings.Contains(bad[1], "mem:3: not a record") || !strings.Contains(bad[2], "mem:4") {
		t.Fatalf("skipped %q", bad)
	}
	// without SkipBad the same file is refused at its first bad line, as
	// report refuses it
	rd = NewReader(strings.NewReader(in), "mem")
	rd.max = 1000
	if _, err := readAll(rd); err == nil || !strings.Contains(err.Error(), "mem:2: line longer") {
		t.Fatalf("error %v", err)
	}
}

func TestReaderFollowsGrowth(t *testing.T) {
	var file bytes.Buffer
	file.WriteString(`{"v":1,"se`)
	waits := 0
	rd := NewReader(&file, "mem")
	rd.Follow(context.Background(), func() bool {
		waits++
		if waits == 1 {
			file.WriteString(`q":7,"sent":1,"done":2}` + "\n")
			return true
		}
		return false
	})
	got, err := readAll(rd)
	if !errors.Is(err, io.EOF) || len(got) != 1 || got[0] != 7 {
		t.Fatalf("records %v, %v after growth, want [7]", got, err)
	}
}

// TestReaderHoldsNoLongLine: 64 MB without a newline (as /dev/zero gives)
// are read past, not held.
func TestReaderHoldsNoLongLine(t *testing.T) {
	long := io.LimitReader(endless('x'), 64<<20)
	rd := NewReader(io.MultiReader(long, strings.NewReader("\n"+line(9))), "mem")
	rd.max = 4096
	rd.SkipBad(func(error) {})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := readAll(rd)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.EOF) || len(got) != 1 || got[0] != 9 {
		t.Fatalf("records %v, %v, want [9]", got, err)
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

// TestReaderEndlessLine: `watch --once /dev/zero` never ended. Without
// SkipBad an endless line ends at MaxLine with an error, with it past
// maxSkipped bytes; following, it ends when ctx does.
func TestReaderEndlessLine(t *testing.T) {
	rd := NewReader(endless(0), "/dev/zero")
	rd.max = 1 << 20
	if _, err := readAll(rd); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("error %v", err)
	}
	// skipping bad lines (as every reader of records now does), a line
	// past maxSkipped ends the file instead of being read past for ever
	maxSkipped = 8 << 20
	defer func() { maxSkipped = 1 << 30 }()
	rd = NewReader(endless(0), "/dev/zero")
	rd.max = 1 << 20
	rd.SkipBad(func(error) {})
	if _, err := readAll(rd); err == nil || !strings.Contains(err.Error(), "not a records file") {
		t.Fatalf("skipping bad lines: error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rd = NewReader(io.MultiReader(strings.NewReader(line(4)), endless('\n')), "mem")
	rd.Follow(ctx, func() bool { return true })
	rd.SkipBad(func(error) {})
	done := make(chan error)
	go func() { _, err := readAll(rd); done <- err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("ended with %v, want context.Canceled", err)
	}
}

// TestReaderSkipBound: a bad line of exactly maxSkipped bytes (its
// newline counted) is skipped and the next read; one byte more ends the
// file.
func TestReaderSkipBound(t *testing.T) {
	maxSkipped = 200
	defer func() { maxSkipped = 1 << 30 }()
	for _, c := range []struct {
		bytes int
		ends  bool
	}{{200, false}, {201, true}} {
		rd := NewReader(strings.NewReader(strings.Repeat("x", c.bytes-1)+"\n"+line(1)), "mem")
		rd.max = 64 // a record's line fits, the bad one does not
		bad := 0
		rd.SkipBad(func(error) { bad++ })
		got, err := readAll(rd)
		if c.ends != (err != nil && strings.Contains(err.Error(), "not a records file")) || !c.ends && (len(got) != 1 || bad != 1) {
			t.Errorf("a bad line of %d bytes: %d records, %d bad, %v", c.bytes, len(got), bad, err)
		}
	}
}

// TestReaderBOM: a file saved with a UTF-8 byte-order mark is read.
func TestReaderBOM(t *testing.T) {
	got, err := readAll(NewReader(strings.NewReader("\uFEFF"+line(1)+line(2)), "mem"))
	if !errors.Is(err, io.EOF) || len(got) != 2 {
		t.Fatalf("records %v, %v", got, err)
	}
}

// TestReaderMemoryOfAHugeLine: a 1 GB single-line file took ~0.97 GB before
// report refused it; the reader holds at most MaxLine of it.
func TestReaderMemoryOfAHugeLine(t *testing.T) {
	rd := NewReader(io.LimitReader(endless('x'), 1<<30), "huge")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readAll(rd)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "huge:1: line longer") {
		t.Fatalf("error %v", err)
	}
	// the total of append's growth steps to MaxLine, about 5x; at no time
	// is more than MaxLine and the slice it grows from held
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6*MaxLine {
		t.Errorf("allocated %d MB refusing a 1 GB line", alloc>>20)
	}
}
