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

func FuzzSSE(f *testing.F) {
	f.Add("data: a\r\n\r\nevent: error\ndata: b\ndata: c\n\n: x\ndata: [DONE]")
	f.Add("data:\n\n\n\ndata")
	f.Fuzz(func(t *testing.T, in string) {
		r := newSSEReaderSize(strings.NewReader(in), 16)
		for i := 0; i < len(in)+2; i++ {
			_, data, _, err := r.next()
			if err != nil {
				return
			}
			if len(data) > len(in) {
				t.Fatalf("event longer than input")
			}
		}
		t.Fatalf("reader did not end")
	})
}
