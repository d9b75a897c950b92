package main

import (
	"bytes"
	le "encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine"
)

// TestCorruptRecordsInEveryReader: a records file of good records beside
// broken ones (a line of garbage, a record that does not hold together,
// a last line cut short) is read by merge and compare as report reads
// it: the good records kept, the bad counted and the first named.
func TestCorruptRecordsInEveryReader(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--requests", "3", "--max-tokens", "4", "--records", good, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(good)
	mixed := filepath.Join(dir, "mixed.jsonl")
	bad := `{"v":1,"sent":0,"done":9,"chunks":[[-9200000000000000000,1]]}`
	os.WriteFile(mixed, []byte("garbage\n"+string(data)+bad+"\n"+`{"v":1,"sent":`), 0o644)
	out := filepath.Join(dir, "merged.jsonl")
	code, _, errs := cli(t, "merge", mixed, "-o", out)
	if code != 0 || !strings.Contains(errs, "mixed.jsonl:1") || !strings.Contains(errs, "merged 3 records") {
		t.Errorf("merge: exit %d, %q", code, errs)
	}
	if recs := recordsOf(t, out); len(recs) != 3 {
		t.Errorf("merged %d records, want the 3 good ones", len(recs))
	}
	code, text, errs := cli(t, "compare", mixed, good, "--format", "json")
	var rep struct {
		Steps []struct {
			Requests struct{ Completed int } `json:"requests"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(text), &rep); code != 0 || err != nil || len(rep.Steps) != 2 || rep.Steps[0].Requests.Completed != 3 ||
		!strings.Contains(errs, "mixed.jsonl: 2 lines skipped that are not valid records (3 read)") {
		t.Errorf("compare: exit %d, %v\n%s\n%s", code, err, text, errs)
	}
}

// TestHostileGGUFInEveryReader: files that are no model, or a model
// damaged (cut short, counts past the file, a header of another format),
// are refused with a message naming them by every command that reads a
// GGUF, and none panics.
func TestHostileGGUFInEveryReader(t *testing.T) {
	dir := t.TempDir()
	var whole bytes.Buffer
	if err := engine.WriteShape(&whole, "tiny", "q8_0", 1); err != nil {
		t.Fatal(err)
	}
	huge := append([]byte("GGUF"), make([]byte, 20)...)
	le.LittleEndian.PutUint32(huge[4:], 3)
	le.LittleEndian.PutUint64(huge[8:], 1<<62)  // tensors
	le.LittleEndian.PutUint64(huge[16:], 1<<62) // metadata keys
	files := map[string][]byte{
		"empty.gguf":    nil,
		"text.gguf":     []byte("not a model at all\n"),
		"magic.gguf":    []byte("GGUF"),
		"cut.gguf":      whole.Bytes()[:whole.Len()/2],
		"header.gguf":   whole.Bytes()[:64],
		"counts.gguf":   huge,
		"wrongver.gguf": append([]byte("GGUF\x63\x00\x00\x00"), whole.Bytes()[8:]...),
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o644)
		for _, args := range [][]string{{"model", "info", path}, {"estimate", "--model", path}, {"serve", "--model", path, "--addr", "127.0.0.1:0"}} {
			code, _, errs := cli(t, args...)
			if code == 0 || !strings.Contains(errs, name) && !strings.Contains(errs, "GGUF") || strings.Contains(errs, "panic") {
				t.Errorf("%s %v: exit %d, %q", name, args[:2], code, errs)
			}
		}
	}
}
