package client

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func readAllEvents(t *testing.T, in string) (events []string, types []string, err error) {
	t.Helper()
	r := newSSEReaderSize(strings.NewReader(in), 16)
	for {
		ev, data, _, err := r.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return events, types, nil
			}
			return events, types, err
		}
		events = append(events, string(data))
		types = append(types, string(ev))
	}
}

func TestSSEFraming(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		want  []string
		types []string
	}{
		{"lf", "data: a\n\ndata: b\n\n", []string{"a", "b"}, []string{"", ""}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}, []string{"", ""}},
		{"no space after colon", "data:a\n\n", []string{"a"}, []string{""}},
		{"comments and keep-alives", ": ping\n\ndata: a\n: mid\n\n", []string{"a"}, []string{""}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}, []string{""}},
		{"event type", "event: error\ndata: x\n\n", []string{"x"}, []string{"error"}},
		{"event without data is dropped", "event: ping\n\ndata: a\n\n", []string{"a"}, []string{""}},
		{"id and retry ignored", "id: 7\nretry: 10\ndata: a\n\n", []string{"a"}, []string{""}},
		{"unterminated last event", "data: a\n\ndata: [DONE]", []string{"a", "[DONE]"}, []string{"", ""}},
		{"line longer than buffer", "data: " + strings.Repeat("x", 100) + "\n\n", []string{strings.Repeat("x", 100)}, []string{""}},
		{"empty", "", nil, nil},
		// the SSE specification's three line endings; a bare CR made one
		// endless line before
		{"bare cr", "data: a\r\rdata: b\r\r", []string{"a", "b"}, []string{"", ""}},
		{"mixed endings", "data: a\r\ndata: b\r\n\ndata: c\r\r\n", []string{"a\nb", "c"}, []string{"", ""}},
		{"cr at a buffer's end", strings.Repeat(":", 14) + "\r\ndata: a\r\n\r\n", []string{"a"}, []string{""}},
		// a BOM lost the first event (and with it the first token's time)
		{"byte-order mark", "\uFEFFdata: a\n\ndata: b\n\n", []string{"a", "b"}, []string{"", ""}},
		{"byte-order mark alone", "\uFEFF", nil, nil},
		{"a BOM later is data", "data: a\n\ndata: \uFEFFb\n\n", []string{"a", "\uFEFFb"}, []string{"", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, types, err := readAllEvents(t, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Fatalf("events %q, want %q", got, c.want)
			}
			if strings.Join(types, "|") != strings.Join(c.types, "|") {
				t.Fatalf("types %q, want %q", types, c.types)
			}
		})
	}
}

func TestSSETooLong(t *testing.T) {
	in := "data: " + strings.Repeat("x", maxEvent+10) + "\n\n"
	_, _, err := readAllEvents(t, in)
	if !errors.Is(err, errEventTooLong) {
		t.Fatalf("err %v, want errEventTooLong", err)
	}
}

// referenceEvents parses a whole stream the plain way, as the SSE
// specification describes it (with tpsbench's one addition: a last event
// without its blank line is dispatched, as servers end streams with
// "data: [DONE]").
func referenceEvents(in string) (events, types []string) {
	in = strings.TrimPrefix(in, "\uFEFF")
	in = strings.ReplaceAll(in, "\r\n", "\n")
	in = strings.ReplaceAll(in, "\r", "\n")
	var data, typ []string
	hasData := false
	dispatch := func() {
		// an empty data buffer is not dispatched (one "data:" of nothing)
		if joined := strings.Join(data, "\n"); hasData && joined != "" {
			events, types = append(events, joined), append(types, strings.Join(typ, ""))
		}
		data, typ, hasData = nil, nil, false
	}
	lines := strings.Split(in, "\n")
	for i, line := range lines {
		if i == len(lines)-1 && line == "" {
			break // the text ended with a line ending
		}
		if line == "" {
			dispatch()
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data, hasData = append(data, value), true
		case "event":
			typ = []string{value}
		}
	}
	dispatch()
	return events, types
}

func FuzzSSE(f *testing.F) {
	f.Add("data: a\r\n\r\nevent: error\ndata: b\ndata: c\n\n: x\ndata: [DONE]")
	f.Add("data:\n\n\n\ndata")
	f.Add("\uFEFFdata: a\r\rdata: b\r\n\ndata: c")
	f.Add("\xef\xbbdata: a\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, types, err := readAllEvents(t, in)
		if err != nil {
			return // too long an event
		}
		want, wantTypes := referenceEvents(in)
		if strings.Join(got, "\x00|") != strings.Join(want, "\x00|") || len(got) != len(want) || strings.Join(types, "|") != strings.Join(wantTypes, "|") {
			t.Fatalf("%q: events %q types %q, want %q %q", in, got, types, want, wantTypes)
		}
	})
}
