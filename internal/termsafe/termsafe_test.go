package termsafe

import (
	"bytes"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"llama-3-8b", "llama-3-8b"},
		{"é 模型", "é 模型"},
		{"a\x1b]0;pwned\x07b", "a?]0;pwned?b"},
		{"line\nbreak\ttab\r", "line?break?tab?"},
		{"c1\u009b31m", "c1?31m"},
		{"del\x7f", "del?"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Model: m\n\tTPS 3\n", "Model: m\n\tTPS 3\n"},
		{"Model: \x1b[2Jm\r\n", "Model: ?[2Jm?\n"},
		{"c1 \u009b2J é", "c1 ??2J é"},
		{"\x00", "?"},
	} {
		var b bytes.Buffer
		in := []byte(tc.in)
		n, err := Writer(&b).Write(in)
		if err != nil || n != len(in) || b.String() != tc.want {
			t.Errorf("Write(%q): %d, %v, wrote %q; want %q", tc.in, n, err, b.String(), tc.want)
		}
		if string(in) != tc.in {
			t.Errorf("Write changed its argument to %q", in)
		}
	}
}

func FuzzWriter(f *testing.F) {
	f.Add([]byte("a\x1b[0m\u009b\n\t\xc2"))
	f.Fuzz(func(t *testing.T, p []byte) {
		var b bytes.Buffer
		n, err := Writer(&b).Write(p)
		if err != nil || n != len(p) || b.Len() != len(p) {
			t.Fatalf("%d, %v, %d bytes out of %d", n, err, b.Len(), len(p))
		}
		for i := range b.Len() {
			if controlAt(b.Bytes(), i) != 0 {
				t.Fatalf("control left at %d in %q", i, b.Bytes())
			}
		}
	})
}
