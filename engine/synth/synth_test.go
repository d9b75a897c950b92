package synth

import (
	"bytes"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// TestBytesIsWrite: the file Bytes sizes in advance is the one Write
// streams, byte for byte, and fills its buffer exactly.
func TestBytesIsWrite(t *testing.T) {
	for _, c := range []struct {
		shape   string
		formats []gguf.TensorType
	}{{"tiny", Formats}, {"15m", []gguf.TensorType{gguf.F32}}} {
		shape := c.shape
		p, err := Lookup(shape)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range c.formats {
			b, err := Bytes(p, typ, 3)
			if err != nil {
				t.Fatal(err)
			}
			var w bytes.Buffer
			if err := Write(&w, p, typ, 3); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, w.Bytes()) {
				t.Errorf("%s %s: Bytes gives %d bytes, Write %d, and they differ", shape, typ, len(b), w.Len())
			}
			if cap(b) != len(b) {
				t.Errorf("%s %s: a buffer of %d for %d bytes", shape, typ, cap(b), len(b))
			}
			if _, err := gguf.Parse(b); err != nil {
				t.Errorf("%s %s: %v", shape, typ, err)
			}
		}
	}
	if _, err := Bytes(Shape{Name: "bad"}, gguf.F32, 1); err == nil {
		t.Error("a shape of zero sizes was written")
	}
}
