package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
)

// Open maps a GGUF file and parses it. Tensor data stays in the mapping
// (not copied; read into memory where there is no mmap); Close unmaps it.
func Open(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening model: %w", err)
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, fmt.Errorf("opening model: %w", err)
	}
	if !st.Mode().IsRegular() {
		// a directory, a device, a pipe: not a model file (mapping a
		// directory said "no such device")
		what := "a directory"
		if !st.IsDir() {
			what = "a device or a pipe"
		}
		return nil, fmt.Errorf("opening model: %s is %s, not a GGUF file", path, what)
	}
	size := st.Size()
	if size < 24 {
		return nil, fmt.Errorf("%s: %d bytes is too short for a GGUF file", path, size)
	}
	if size > math.MaxInt {
		return nil, fmt.Errorf("%s: too large to map", path)
	}
	data, release, err := mapFile(fd, int(size))
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	f, err := Parse(data)
	if err != nil {
		_ = release()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.closer = release
	return f, nil
}

// readWhole reads size bytes of fd into memory, for systems without mmap:
// the model's weights then take the file's size in memory of their own,
// where a mapping shares the page cache's.
func readWhole(fd *os.File, size int) (data []byte, release func() error, err error) {
	data = make([]byte, size)
	if _, err := io.ReadFull(fd, data); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// Parse reads a whole GGUF file held in memory. Tensor Data slices point
// into b.
func Parse(b []byte) (*File, error) {
	r := &reader{b: b}
	magic, err := r.u32("magic")
	if err != nil {
		return nil, err
	}
	if magic != Magic {
		return nil, fmt.Errorf("offset 0: not a GGUF file (magic %#08x, want %#08x)", magic, Magic)
	}
	f := &File{}
	if f.Version, err = r.u32("version"); err != nil {
		return nil, err
	}
	if f.Version != 2 && f.Version != 3 {
		return nil, fmt.Errorf("offset 4: GGUF version %d, this reader knows 2 and 3", f.Version)
	}
	nTensors, err := r.u64("tensor count")
	if err != nil {
		return nil, err
	}
	nKV, err := r.u64("metadata count")
	if err != nil {
		return nil, err
	}
	// Every entry takes at least 12 bytes (key length, type) and every
	// tensor 24: a count larger than the file allows is a lie.
	if nKV > uint64(len(b))/12 {
		return nil, fmt.Errorf("offset 16: metadata count %d cannot fit in %d bytes", nKV, len(b))
	}
	if nTensors > uint64(len(b))/24 {
		return nil, fmt.Errorf("offset 8: tensor count %d cannot fit in %d bytes", nTensors, len(b))
	}
	f.Metadata = make([]KV, 0, nKV)
	for i := uint64(0); i < nKV; i++ {
		kv, err := r.kv()
		if err != nil {
			return nil, err
		}
		f.Metadata = append(f.Metadata, kv)
	}
	f.Alignment = DefaultAlignment
	if v, ok := f.Get("general.alignment"); ok {
		a, ok := v.(uint32)
		if !ok || a == 0 || a&(a-1) != 0 {
			return nil, fmt.Errorf("general.alignment %v: want a power of two (uint32)", v)
		}
		f.Alignment = uint64(a)
	}
	f.Tensors = make([]*Tensor, 0, nTensors)
	seen := map[string]bool{}
	for i := uint64(0); i < nTensors; i++ {
		at := r.pos
		t, err := r.tensorInfo(f.Alignment)
		if err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("offset %d: tensor %q appears twice", at, t.Name)
		}
		seen[t.Name] = true
		f.Tensors = append(f.Tensors, t)
	}
	if err := f.placeData(b, uint64(r.pos)); err != nil {
		return nil, err
	}
	return f, nil
}

// kv reads one metadata entry: its key, its type and its value.
func (r *reader) kv() (KV, error) {
	key, err := r.str("metadata key")
	if err != nil {
		return KV{}, err
	}
	typ, err := r.u32("type of " + key)
	if err != nil {
		return KV{}, err
	}
	v, err := r.value(ValueType(typ), key)
	if err != nil {
		return KV{}, err
	}
	return KV{Key: key, Value: v}, nil
}

// tensorInfo reads one tensor's name, shape, format and data offset.
func (r *reader) tensorInfo(alignment uint64) (*Tensor, error) {
	name, err := r.str("tensor name")
	if err != nil {
		return nil, err
	}
	nd, err := r.u32("dimension count of " + name)
	if err != nil {
		return nil, err
	}
	if nd == 0 || nd > 4 {
		return nil, fmt.Errorf("offset %d: tensor %q has %d dimensions, want 1 to 4", r.pos-4, name, nd)
	}
	t := &Tensor{Name: name, Dims: make([]uint64, nd)}
	elems := uint64(1)
	for d := range t.Dims {
		if t.Dims[d], err = r.u64("dimension of " + name); err != nil {
			return nil, err
		}
		if t.Dims[d] == 0 || elems > math.MaxInt64/t.Dims[d] {
			return nil, fmt.Errorf("offset %d: tensor %q has dimension %d = %d", r.pos-8, name, d, t.Dims[d])
		}
		elems *= t.Dims[d]
	}
	typ, err := r.u32("type of " + name)
	if err != nil {
		return nil, err
	}
	t.Type = TensorType(typ)
	if !t.Type.Known() {
		return nil, fmt.Errorf("offset %d: tensor %q has unknown format %d", r.pos-4, name, typ)
	}
	if t.Dims[0]%uint64(t.Type.BlockSize()) != 0 {
		return nil, fmt.Errorf("tensor %q: row of %d elements is not a whole number of %s blocks", name, t.Dims[0], t.Type)
	}
	if t.Offset, err = r.u64("offset of " + name); err != nil {
		return nil, err
	}
	if t.Offset%alignment != 0 {
		return nil, fmt.Errorf("tensor %q: data offset %d is not aligned to %d", name, t.Offset, alignment)
	}
	return t, nil
}

// placeData points each tensor's Data into b, the data starting at the
// first aligned offset from end (the header's end), after checking that
// it lies within b.
func (f *File) placeData(b []byte, end uint64) error {
	f.DataStart = alignUp(end, f.Alignment)
	size := uint64(len(b))
	for _, t := range f.Tensors {
		// Each bound is checked before the product or sum it guards, so
		// no count can wrap around uint64 into a small, valid-looking one.
		ti := typeInfo[t.Type]
		blocks := t.Elements() / uint64(ti.block)
		if f.DataStart > size || t.Offset > size-f.DataStart || blocks > (size-f.DataStart-t.Offset)/uint64(ti.size) {
			return fmt.Errorf("tensor %q: %d elements of %s at data offset %d run past the end of the file (%d bytes)", t.Name, t.Elements(), t.Type, t.Offset, len(b))
		}
		start := f.DataStart + t.Offset
		stop := start + blocks*uint64(ti.size)
		t.Data = b[start:stop:stop]
	}
	return nil
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) / a * a }

// reader is a bounds-checked cursor; errors name the offset.
type reader struct {
	b   []byte
	pos int
}

func (r *reader) need(n uint64, what string) error {
	if n > uint64(len(r.b)-r.pos) {
		return fmt.Errorf("offset %d: want %d bytes for %s, the file ends at %d", r.pos, n, what, len(r.b))
	}
	return nil
}

func (r *reader) u32(what string) (uint32, error) {
	if err := r.need(4, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(r.b[r.pos:])
	r.pos += 4
	return v, nil
}

func (r *reader) u64(what string) (uint64, error) {
	if err := r.need(8, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(r.b[r.pos:])
	r.pos += 8
	return v, nil
}

func (r *reader) str(what string) (string, error) {
	n, err := r.u64(what) // not "length of "+what: that allocates for every string read
	if err != nil {
		return "", err
	}
	if err := r.need(n, what); err != nil {
		return "", err
	}
	s := string(r.b[r.pos : r.pos+int(n)])
	r.pos += int(n)
	return s, nil
}

func (r *reader) value(t ValueType, key string) (Value, error) {
	if sz := t.size(); sz > 0 {
		if err := r.need(uint64(sz), key); err != nil {
			return nil, err
		}
		v, err := decodeFixed(t, r.b[r.pos:r.pos+sz])
		if err != nil {
			return nil, fmt.Errorf("offset %d: %s: %w", r.pos, key, err)
		}
		r.pos += sz
		return v, nil
	}
	switch t {
	case TypeString:
		return r.str(key)
	case TypeArray:
		return r.array(key)
	}
	return nil, fmt.Errorf("offset %d: %s: unknown value type %d", r.pos-4, key, uint32(t))
}

// array reads an array value. Fixed-size elements are checked and kept as
// the file's bytes (copied, as the file may be unmapped before the
// metadata is dropped), so memory follows what the file holds.
func (r *reader) array(key string) (*Array, error) {
	et, err := r.u32("element type of " + key)
	if err != nil {
		return nil, err
	}
	typ := ValueType(et)
	n, err := r.u64("length of " + key)
	if err != nil {
		return nil, err
	}
	min := uint64(typ.size())
	switch typ {
	case TypeString:
		min = 8
	case TypeArray:
		return nil, fmt.Errorf("offset %d: %s: arrays of arrays are not supported", r.pos-12, key)
	}
	if min == 0 {
		return nil, fmt.Errorf("offset %d: %s: unknown element type %d", r.pos-12, key, et)
	}
	if n > uint64(len(r.b)-r.pos)/min {
		return nil, fmt.Errorf("offset %d: %s: array of %d %s cannot fit in the %d bytes left", r.pos-8, key, n, typ, len(r.b)-r.pos)
	}
	a := &Array{Type: typ, n: int(n)}
	if typ == TypeString {
		a.strs = make([]string, n)
		for i := range a.strs {
			if a.strs[i], err = r.str(key); err != nil {
				return nil, err
			}
		}
		return a, nil
	}
	raw := r.b[r.pos : r.pos+int(n*min)]
	if typ == TypeBool {
		for i, c := range raw {
			if c > 1 {
				return nil, fmt.Errorf("offset %d: %s: bool value %d", r.pos+i, key, c)
			}
		}
	}
	a.raw = bytes.Clone(raw)
	r.pos += len(raw)
	return a, nil
}

// decodeFixed decodes one little-endian value of a fixed-size type.
func decodeFixed(t ValueType, b []byte) (Value, error) {
	le := binary.LittleEndian
	switch t {
	case TypeUint8:
		return b[0], nil
	case TypeInt8:
		return int8(b[0]), nil
	case TypeBool:
		if b[0] > 1 {
			return nil, fmt.Errorf("bool value %d", b[0])
		}
		return b[0] == 1, nil
	case TypeUint16:
		return le.Uint16(b), nil
	case TypeInt16:
		return int16(le.Uint16(b)), nil
	case TypeUint32:
		return le.Uint32(b), nil
	case TypeInt32:
		return int32(le.Uint32(b)), nil
	case TypeFloat32:
		return math.Float32frombits(le.Uint32(b)), nil
	case TypeUint64:
		return le.Uint64(b), nil
	case TypeInt64:
		return int64(le.Uint64(b)), nil
	case TypeFloat64:
		return math.Float64frombits(le.Uint64(b)), nil
	}
	return nil, fmt.Errorf("%s is not a fixed-size type", t)
}
