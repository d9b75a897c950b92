package record

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartialLineOfAnyLength: a killed writer's partial last line is cut
// whatever its length, the newline before it landing anywhere in the
// 64 KiB blocks the file is read back in (first byte of a block included).
func TestPartialLineOfAnyLength(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	for _, n := range []int{1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200_000} {
		partial := `{"v":1,"seq":2,"prompt":"` + strings.Repeat("x", n)
		partial = partial[:n]
		os.WriteFile(path, []byte(line(1)+partial), 0o644)
		w, cut, err := OpenFile(path)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		w.Close()
		if cut != int64(n) {
			t.Errorf("partial line of %d bytes: cut %d", n, cut)
		}
	}
}

// TestFollowedLineSplitAnywhere: a line written in two parts while it is
// followed is read whole, wherever it was split (after its first byte,
// or before its last).
func TestFollowedLineSplitAnywhere(t *testing.T) {
	whole := line(7)
	for split := 1; split < len(whole); split++ {
		var file bytes.Buffer
		file.WriteString(whole[:split])
		grown := false
		rd := NewReader(&file, "mem")
		rd.Follow(context.Background(), func() bool {
			if !grown {
				file.WriteString(whole[split:])
				grown = true
				return true
			}
			return false
		})
		got, err := readAll(rd)
		if !errors.Is(err, io.EOF) || len(got) != 1 || got[0] != 7 {
			t.Fatalf("split after %d bytes: records %v, %v", split, got, err)
		}
	}
}

// TestHTTPPhaseTimesInOrder: a record's phases come in HTTPPhaseNames'
// order, sending its upload; a record sent over no HTTP has none.
func TestHTTPPhaseTimesInOrder(t *testing.T) {
	r := &Record{Upload: 5, HTTP: &HTTPPhases{Blocked: 1, DNS: 2, Connecting: 3, TLS: 4, Waiting: 6, Receiving: 7}}
	ns, ok := r.HTTPPhaseTimes()
	if !ok || ns != [len(HTTPPhaseNames)]int64{1, 2, 3, 4, 5, 6, 7} {
		t.Errorf("phases %v, %v", ns, ok)
	}
	if _, ok := (&Record{Upload: 5}).HTTPPhaseTimes(); ok {
		t.Error("a record without HTTP phases has them")
	}
	// the checker holds the same phases, by the same names (sending is
	// the upload, checked with the record's sizes)
	var names []string
	(&HTTPPhases{}).each(func(name string, _ *int64) { names = append(names, name) })
	want := []string{}
	for _, n := range HTTPPhaseNames {
		if n != "sending" {
			want = append(want, n)
		}
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("checked phases %v, named %v", names, want)
	}
}
