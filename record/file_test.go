package record

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDisk is a file that takes room bytes more, then fails as a full disk
// does, after taking part of the write.
type fullDisk struct {
	data bytes.Buffer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.room {
		d.room -= len(p)
		return d.data.Write(p)
	}
	n := d.room
	d.data.Write(p[:n])
	d.room = 0
	return n, syscall.ENOSPC
}

func (d *fullDisk) Truncate(size int64) error { d.data.Truncate(int(size)); return nil }
func (d *fullDisk) Close() error              { return nil }

// TestFileWriterFullDisk: proxy records stopped for good after one write
// error and left a partial line that made report refuse the whole file.
// Now the partial line is cut, the loss counted, and writing resumes.
func TestFileWriterFullDisk(t *testing.T) {
	disk := &fullDisk{room: 150} // one record and part of the next
	w := newFileWriter(disk, 0)
	rec := func(seq int) *Record { return &Record{Seq: seq, Sent: 1, Done: 2} }
	if err := w.Write(rec(1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec(2)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("write on a full disk: %v", err)
	}
	if err := w.Write(rec(3)); err == nil {
		t.Fatal("a full disk took a record")
	}
	disk.room = 1 << 20 // room again
	if err := w.Write(rec(4)); err != nil {
		t.Fatal(err)
	}
	if w.Lost() != 2 {
		t.Errorf("lost %d, want 2", w.Lost())
	}
	got, err := readAll(NewReader(&disk.data, "disk"))
	if !errors.Is(err, io.EOF) || len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Fatalf("records %v, %v: want [1 4] and a clean end", got, err)
	}
}

// TestOpenFileCutsPartialLine: a file a killed writer left with a partial
// last line is appended to from its last whole line.
func TestOpenFileCutsPartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, []byte(line(1)+`{"v":1,"se`), 0o644)
	w, cut, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if cut != int64(len(`{"v":1,"se`)) {
		t.Errorf("cut %d bytes", cut)
	}
	if err := w.Write(&Record{Seq: 2, Sent: 1, Done: 2}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	b, _ := os.ReadFile(path)
	got, err := readAll(NewReader(strings.NewReader(string(b)), path))
	if !errors.Is(err, io.EOF) || len(got) != 2 {
		t.Fatalf("records %v, %v in %q", got, err, b)
	}
	// a file of whole lines, and an empty one, lose nothing
	for _, content := range []string{line(1), ""} {
		os.WriteFile(path, []byte(content), 0o644)
		w, cut, err := OpenFile(path)
		if err != nil || cut != 0 {
			t.Fatalf("%q: cut %d, %v", content, cut, err)
		}
		w.Close()
	}
}

// TestOpenFileRefusesOtherFiles: a proxy pointed at a file that is not
// records neither appends to it nor cuts its last line.
func TestOpenFileRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	const content = "my notes\nno newline at the end"
	os.WriteFile(path, []byte(content), 0o644)
	if _, _, err := OpenFile(path); err == nil || !strings.Contains(err.Error(), "not appending") {
		t.Errorf("OpenFile of a text file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != content {
		t.Errorf("the file changed: %q", b)
	}
	if w, _, err := OpenFile(os.DevNull); err != nil {
		t.Errorf("OpenFile(%s): %v", os.DevNull, err)
	} else {
		w.Close()
	}
}

// shortDisk takes half of the write it is asked and says nothing of the
// rest, as a Write may.
type shortDisk struct{ fullDisk }

func (d *shortDisk) Write(p []byte) (int, error) {
	n, _ := d.data.Write(p[:len(p)/2])
	return n, nil
}

// TestShortWriteIsLost: a write the file took only part of, without an
// error, is an error (io.ErrShortWrite), counted lost, its partial line
// cut; a records file is made readable, not executable.
func TestShortWriteIsLost(t *testing.T) {
	disk := &shortDisk{}
	w := newFileWriter(disk, 0)
	if err := w.Write(&Record{Seq: 1, Sent: 1, Done: 2}); !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("a short write: %v", err)
	}
	if w.Lost() != 1 || disk.data.Len() != 0 {
		t.Errorf("lost %d, %d bytes left; want 1 and none", w.Lost(), disk.data.Len())
	}
	if err := w.Write(&Record{Seq: 2, Sent: 1, Done: 2}); err == nil || strings.Contains(err.Error(), "cutting") {
		t.Errorf("a partial line cut cleanly reported as %v", err)
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	fw, _, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fw.Close()
	if st, err := os.Stat(path); err != nil || st.Mode().Perm()&0o111 != 0 || st.Mode().Perm()&0o400 == 0 {
		t.Errorf("records file mode %v, %v", st.Mode(), err)
	}
}

// TestFullDiskAfterOneByte: a write the disk took one byte of is cut back
// to the last whole line as surely as a longer part.
func TestFullDiskAfterOneByte(t *testing.T) {
	disk := &fullDisk{room: 1 << 10}
	w := newFileWriter(disk, 0)
	if err := w.Write(&Record{Seq: 1, Sent: 1, Done: 2}); err != nil {
		t.Fatal(err)
	}
	disk.room = 1
	if err := w.Write(&Record{Seq: 2, Sent: 1, Done: 2}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a write of one byte on a full disk: %v", err)
	}
	if w.Lost() != 1 || !strings.HasSuffix(disk.data.String(), "\n") || strings.Count(disk.data.String(), "\n") != 1 {
		t.Errorf("lost %d, the file holds %q", w.Lost(), disk.data.String())
	}
}
