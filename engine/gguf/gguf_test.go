package gguf

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sampleFile(t *testing.T) ([]byte, []KV, []*Tensor) {
	t.Helper()
	md := []KV{
		{"general.architecture", "llama"},
		{"u8", uint8(7)}, {"i8", int8(-7)}, {"u16", uint16(700)}, {"i16", int16(-700)},
		{"u32", uint32(70000)}, {"i32", int32(-70000)}, {"f32", float32(1.5)}, {"b", true},
		{"u64", uint64(1) << 40}, {"i64", int64(-1) << 40}, {"f64", 2.25},
		{"tokens", Strings([]string{"<unk>", "▁hello", ""})},
		{"scores", Float32s([]float32{0, -1.5, -2})},
		{"nested", &Array{Type: TypeArray, Values: []any{Int32s([]int32{1, 2})}}},
	}
	tensors := []*Tensor{
		{Name: "a", Dims: []uint64{4, 2}, Type: F32, Data: bytes.Repeat([]byte{1}, 32)},
		{Name: "b", Dims: []uint64{32}, Type: Q8_0, Data: bytes.Repeat([]byte{2}, 34)},
		{Name: "c", Dims: []uint64{64, 3}, Type: Q4_0, Data: bytes.Repeat([]byte{3}, 6*18)},
	}
	var buf bytes.Buffer
	if err := Write(&buf, md, tensors); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), md, tensors
}

func TestRoundTrip(t *testing.T) {
	b, md, tensors := sampleFile(t)
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Alignment != 32 || f.DataStart%32 != 0 {
		t.Fatalf("version %d alignment %d data start %d", f.Version, f.Alignment, f.DataStart)
	}
	if !reflect.DeepEqual(f.Metadata, md) {
		t.Fatalf("metadata differs:\n%#v\n%#v", f.Metadata, md)
	}
	for i, want := range tensors {
		got := f.Tensors[i]
		if got.Name != want.Name || !reflect.DeepEqual(got.Dims, want.Dims) || got.Type != want.Type || !bytes.Equal(got.Data, want.Data) || got.Offset%32 != 0 {
			t.Errorf("tensor %d: %+v", i, got)
		}
	}
	if f.Tensor("c") != f.Tensors[2] {
		t.Error("lookup by name")
	}
	n, err := f.Uint("u32")
	if err != nil || n != 70000 {
		t.Errorf("Uint: %v %v", n, err)
	}
	if _, err := f.Uint("i8"); err == nil {
		t.Error("negative value read as unsigned")
	}
	path := filepath.Join(t.TempDir(), "m.gguf")
	os.WriteFile(path, b, 0o644)
	mf, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	if !bytes.Equal(mf.Tensor("b").Data, tensors[1].Data) {
		t.Error("mapped data differs")
	}
}

func TestRejectsMalformed(t *testing.T) {
	b, _, _ := sampleFile(t)
	le := binary.LittleEndian
	mut := func(f func(c []byte) []byte) []byte { return f(append([]byte(nil), b...)) }
	cases := map[string]struct {
		in   []byte
		want string
	}{
		"empty":          {nil, "offset 0"},
		"wrong magic":    {mut(func(c []byte) []byte { c[0] = 'X'; return c }), "not a GGUF file"},
		"version 1":      {mut(func(c []byte) []byte { le.PutUint32(c[4:], 1); return c }), "version 1"},
		"huge tensors":   {mut(func(c []byte) []byte { le.PutUint64(c[8:], 1<<60); return c }), "tensor count"},
		"huge metadata":  {mut(func(c []byte) []byte { le.PutUint64(c[16:], 1<<60); return c }), "metadata count"},
		"truncated head": {b[:100], "offset"},
		"truncated data": {b[:len(b)-10], "past the end"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	var buf bytes.Buffer
	_ = Write(&buf, []KV{{"k", "v"}, {"a", Int32s([]int32{1})}}, []*Tensor{{Name: "t", Dims: []uint64{32}, Type: Q8_0, Data: make([]byte, 34)}})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			return
		}
		for _, tn := range file.Tensors {
			if uint64(len(tn.Data)) != tn.Bytes() {
				t.Fatalf("tensor %s: %d bytes for %d", tn.Name, len(tn.Data), tn.Bytes())
			}
		}
	})
}
