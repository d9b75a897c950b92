package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestHeaders: a run's header line goes before its records and is read
// apart from them, wherever it stands; LeadingHeaders reads those at the
// head alone; a header line that does not parse is a bad line.
func TestHeaders(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	h := Header{Run: "r1", Tpsbench: "0.1", Go: "go1.26", Sent: map[string]any{"stream": true}, Targets: json.RawMessage(`{"list":[]}`)}
	if err := w.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	w.Write(&Record{Run: "r1", Seq: 0})
	w.WriteHeader(Header{Run: "r2", Tpsbench: "0.1"})
	w.Write(&Record{Run: "r2", Seq: 0})
	w.Flush()
	if !strings.HasPrefix(buf.String(), `{"header":{"run":"r1"`) {
		t.Fatalf("file %q", buf.String())
	}
	rd := NewReader(bytes.NewReader(buf.Bytes()), "f")
	var runs []string
	for {
		var r Record
		if err := rd.Next(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r.Run)
	}
	if len(runs) != 2 || len(rd.Headers()) != 2 || rd.Headers()[1].Run != "r2" || rd.Headers()[0].Sent["stream"] != true ||
		string(rd.Headers()[0].Targets) != `{"list":[]}` {
		t.Errorf("records of runs %v, headers %+v", runs, rd.Headers())
	}
	if lead := LeadingHeaders(bytes.NewReader(buf.Bytes()), "f"); len(lead) != 1 || lead[0].Run != "r1" {
		t.Errorf("leading headers %+v, want the first run's alone", lead)
	}
	bad := NewReader(strings.NewReader(`{"header":7}`+"\n"+`{"v":1}`+"\n"), "bad")
	var r Record
	if err := bad.Next(&r); err == nil || !strings.Contains(err.Error(), "bad:1: not a run's header") {
		t.Errorf("a broken header: %v", err)
	}
	skipped := 0
	bad = NewReader(strings.NewReader(`{"header":7}`+"\n"+`{"v":1}`+"\n"), "bad")
	bad.SkipBad(func(error) { skipped++ })
	if err := bad.Next(&r); err != nil || skipped != 1 {
		t.Errorf("skipping a broken header: %v, %d skipped", err, skipped)
	}
}
