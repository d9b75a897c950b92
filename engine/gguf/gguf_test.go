package gguf

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
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
		{"ids", Int32s([]int32{1, -2})},
		{"empty", Strings(nil)},
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
	if len(f.Metadata) != len(md) {
		t.Fatalf("%d metadata entries, want %d", len(f.Metadata), len(md))
	}
	for i, kv := range f.Metadata {
		want := md[i]
		a, isArray := kv.Value.(*Array)
		if kv.Key != want.Key || (isArray && !a.Equal(want.Value.(*Array))) || (!isArray && kv.Value != want.Value) {
			t.Errorf("metadata %d: %s = %#v, want %s = %#v", i, kv.Key, kv.Value, want.Key, want.Value)
		}
	}
	for i, want := range tensors {
		got := f.Tensors[i]
		if got.Name != want.Name || !reflect.DeepEqual(got.Dims, want.Dims) || got.Type != want.Type || !bytes.Equal(got.Data, want.Data) || got.Offset%32 != 0 {
			t.Errorf("tensor %d: %+v", i, got)
		}
	}
	if n, err := Size(md, tensors); err != nil || n != len(b) {
		t.Errorf("Size: %d, %v; Write wrote %d", n, err, len(b))
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
	// where there is no mmap (Windows) the file is read whole instead
	fd, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	data, release, err := readWhole(fd, len(b))
	if err != nil || !bytes.Equal(data, b) || release() != nil {
		t.Errorf("readWhole: %d bytes, equal %v, %v", len(data), bytes.Equal(data, b), err)
	}
	if _, _, err := readWhole(fd, 1); err == nil {
		t.Error("readWhole past the end of the file: no error")
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
		// 64 x 2^56 F32 elements take 2^64 bytes, which wrapped to 0
		"tensor bytes overflow":      {tensorFile(t, []uint64{64, 1 << 56}, F32), "past the end"},
		"array of arrays":            {arrayFile(TypeArray, 1, make([]byte, 12)), "arrays of arrays"},
		"array of bad bools":         {arrayFile(TypeBool, 2, []byte{1, 2}), "bool value 2"},
		"array longer than the file": {arrayFile(TypeUint8, 1<<40, make([]byte, 16)), "cannot fit"},
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
	f.Add(tensorFile(f, []uint64{64, 1 << 56}, F32))
	f.Add(arrayFile(TypeUint8, 1<<20, make([]byte, 1<<20)))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			return
		}
		for _, tn := range file.Tensors {
			// counted in big integers: a uint64 product can wrap to a
			// small count that agrees with a wrong slice
			want := new(big.Int).SetUint64(uint64(typeInfo[tn.Type].size))
			for _, d := range tn.Dims {
				want.Mul(want, new(big.Int).SetUint64(d))
			}
			want.Div(want, big.NewInt(int64(tn.Type.BlockSize())))
			if want.Cmp(big.NewInt(int64(len(tn.Data)))) != 0 {
				t.Fatalf("tensor %s: %d bytes for %v of %s", tn.Name, len(tn.Data), tn.Dims, tn.Type)
			}
		}
		for _, kv := range file.Metadata {
			if a, ok := kv.Value.(*Array); ok && a.Len() > 0 {
				_ = a.At(a.Len() - 1)
			}
		}
	})
}

// fileHeader is a version 3 header declaring tensors and kvs entries.
func fileHeader(tensors, kvs uint64) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, Magic)
	b = le.AppendUint32(b, 3)
	b = le.AppendUint64(b, tensors)
	return le.AppendUint64(b, kvs)
}

// tensorFile is a valid file with one tensor of dims and typ whose header
// is written by hand, so that the dimensions need not match any data.
func tensorFile(t testing.TB, dims []uint64, typ TensorType) []byte {
	t.Helper()
	le := binary.LittleEndian
	b := append(fileHeader(1, 0), 1, 0, 0, 0, 0, 0, 0, 0, 't')
	b = le.AppendUint32(b, uint32(len(dims)))
	for _, d := range dims {
		b = le.AppendUint64(b, d)
	}
	b = le.AppendUint32(b, uint32(typ))
	b = le.AppendUint64(b, 0) // offset
	return append(b, make([]byte, 64)...)
}

// arrayFile is a file whose one metadata entry is an array of n elements
// of type et, followed by body.
func arrayFile(et ValueType, n uint64, body []byte) []byte {
	le := binary.LittleEndian
	b := append(fileHeader(0, 1), 1, 0, 0, 0, 0, 0, 0, 0, 'a')
	b = le.AppendUint32(b, uint32(TypeArray))
	b = le.AppendUint32(b, uint32(et))
	b = le.AppendUint64(b, n)
	return append(b, body...)
}

// TestArrayMemory: a metadata array costs what it takes in the file. One
// uint8 array of 64 MB took 1.1 GB as boxed values.
func TestArrayMemory(t *testing.T) {
	const n = 16 << 20
	for _, c := range []struct {
		typ  ValueType
		size int
	}{{TypeUint8, 1}, {TypeFloat32, 4}, {TypeString, 8}} {
		b := arrayFile(c.typ, n, make([]byte, n*c.size))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f, err := Parse(b)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		a, err := f.Array("a")
		if err != nil || a.Len() != n {
			t.Fatalf("%s: %v, %d elements", c.typ, err, a.Len())
		}
		// strings keep a 16-byte header each for 8 bytes of file
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(2*len(b)+1<<20); got > limit {
			t.Errorf("%s: parsing %d bytes allocated %d, want at most %d", c.typ, len(b), got, limit)
		}
	}
}

func TestArrayAccessors(t *testing.T) {
	f, err := Parse(arrayFile(TypeInt32, 2, []byte{1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff}))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Array("a")
	if is, err := a.Int32s(); err != nil || !reflect.DeepEqual(is, []int32{1, -2}) {
		t.Errorf("Int32s = %v, %v", is, err)
	}
	if a.At(1) != int32(-2) {
		t.Errorf("At(1) = %v", a.At(1))
	}
	if _, err := a.Strings(); err == nil {
		t.Error("an int32 array read as strings")
	}
	if _, err := a.Float32s(); err == nil {
		t.Error("an int32 array read as float32")
	}
}

// TestOpenNotAFile: a directory or a device is named as such, not
// reported as "no such device" by the mapping.
func TestOpenNotAFile(t *testing.T) {
	for path, want := range map[string]string{t.TempDir(): "is a directory", os.DevNull: "is a device or a pipe"} {
		if _, err := Open(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s): %v, want %q", path, err, want)
		}
	}
}
