// Package termsafe keeps text from outside (model names from a server or
// from a proxy's clients, failure kinds and labels read from a records
// file) from driving the terminal it is printed on: its control
// characters, escape sequences' ESC among them, become '?'.
package termsafe

import (
	"io"
	"strings"
	"unicode"
)

// String is s with every control character (C0, DEL, C1; newlines and
// tabs too, which would break a one-line field) replaced by '?'.
func String(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

// Writer passes text on with its control characters replaced by '?',
// except newlines and tabs, which a report lays itself out with. A C1
// control is replaced when both its bytes come in one Write, as each
// value a report prints does.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (s writer) Write(p []byte) (int, error) {
	out := p
	for i := 0; i < len(p); i++ {
		n := controlAt(p, i)
		if n == 0 {
			continue
		}
		if &out[0] == &p[0] {
			out = append([]byte(nil), p...)
		}
		for j := range n {
			out[i+j] = '?'
		}
		i += n - 1
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// controlAt is the length of the control character at p[i], or 0.
func controlAt(p []byte, i int) int {
	switch b := p[i]; {
	case b == '\n' || b == '\t':
		return 0
	case b < 0x20 || b == 0x7f:
		return 1
	case b == 0xc2 && i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
		return 2 // U+0080-U+009F in UTF-8
	}
	return 0
}
