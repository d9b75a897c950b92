package main

import (
	"io"
	"slices"
	"sort"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// recordsOf is the records of a file a run wrote, in the order of their
// requests' sequence numbers.
func recordsOf(t *testing.T, path string) []record.Record {
	t.Helper()
	var recs []record.Record
	if err := readRecords(path, io.Discard, func(r *record.Record) {
		c := *r
		c.Chunks = slices.Clone(r.Chunks) // the reader reuses its record
		recs = append(recs, c)
	}); err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	return recs
}
