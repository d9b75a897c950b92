package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestFollowTruncatedFile: a followed file emptied and written again is
// read from its start, so records after a rotation still arrive.
func TestFollowTruncatedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, []byte(`{"v":1,"seq":1,"sent":1,"done":2}`+"\n"+`{"v":1,"seq":2,"sent":1,"done":2}`+"\n"), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	waits := 0
	rd := record.NewReader(rewinding{f}, path)
	rd.Follow(context.Background(), func() bool {
		waits++
		if waits == 1 {
			// rotated: emptied, then one record shorter than what was read
			os.WriteFile(path, []byte(`{"v":1,"seq":3,"sent":1,"done":2}`+"\n"), 0o644)
			return true
		}
		return false
	})
	var got []int
	var rec record.Record
	for err = rd.Next(&rec); err == nil; err = rd.Next(&rec) {
		got = append(got, rec.Seq)
	}
	if !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2] != 3 {
		t.Fatalf("records %v, want [1 2 3]", got)
	}
}
