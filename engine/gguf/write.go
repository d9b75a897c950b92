package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
)

// Write writes a version 3 GGUF file: metadata in order, then tensor
// descriptions, then each tensor's Data at offsets aligned to the file's
// alignment (general.alignment if present, else 32). Offsets are computed
// here; the tensors' Offset fields are updated.
func Write(w io.Writer, md []KV, tensors []*Tensor) error {
	align := uint64(DefaultAlignment)
	for _, kv := range md {
		if kv.Key == "general.alignment" {
			a, ok := kv.Value.(uint32)
			if !ok || a == 0 || a&(a-1) != 0 {
				return fmt.Errorf("general.alignment %v: want a power of two (uint32)", kv.Value)
			}
			align = uint64(a)
		}
	}
	off := uint64(0)
	for _, t := range tensors {
		if uint64(len(t.Data)) != t.Bytes() {
			return fmt.Errorf("tensor %s: %d bytes of data for %d elements of %s (want %d)", t.Name, len(t.Data), t.Elements(), t.Type, t.Bytes())
		}
		off = alignUp(off, align)
		t.Offset = off
		off += t.Bytes()
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	e := &encoder{w: cw}
	e.u32(Magic)
	e.u32(3)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(md)))
	for _, kv := range md {
		e.str(kv.Key)
		t, err := typeOf(kv.Value)
		if err != nil {
			return fmt.Errorf("metadata %s: %w", kv.Key, err)
		}
		e.u32(uint32(t))
		if err := e.value(kv.Value); err != nil {
			return fmt.Errorf("metadata %s: %w", kv.Key, err)
		}
	}
	for _, t := range tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(t.Offset)
	}
	start := alignUp(cw.n, align)
	e.pad(start - cw.n)
	for _, t := range tensors {
		e.pad(start + t.Offset - cw.n)
		e.bytes(t.Data)
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// Size is the number of bytes Write writes for md and tensors, so that a
// caller can hold the file in a buffer of its size.
func Size(md []KV, tensors []*Tensor) (int, error) {
	c := &countWriter{w: io.Discard}
	if err := Write(c, md, tensors); err != nil {
		return 0, err
	}
	return int(c.n), nil
}

type countWriter struct {
	w io.Writer
	n uint64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

type encoder struct {
	w   io.Writer
	err error
	buf [8]byte
}

func (e *encoder) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.bytes(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.bytes(e.buf[:8]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.bytes([]byte(s)) }
func (e *encoder) pad(n uint64) {
	var zero [64]byte
	for n > 0 {
		k := min(n, 64)
		e.bytes(zero[:k])
		n -= k
	}
}

func typeOf(v Value) (ValueType, error) {
	switch v.(type) {
	case uint8:
		return TypeUint8, nil
	case int8:
		return TypeInt8, nil
	case uint16:
		return TypeUint16, nil
	case int16:
		return TypeInt16, nil
	case uint32:
		return TypeUint32, nil
	case int32:
		return TypeInt32, nil
	case float32:
		return TypeFloat32, nil
	case bool:
		return TypeBool, nil
	case string:
		return TypeString, nil
	case *Array:
		return TypeArray, nil
	case uint64:
		return TypeUint64, nil
	case int64:
		return TypeInt64, nil
	case float64:
		return TypeFloat64, nil
	}
	return 0, fmt.Errorf("cannot store a %T", v)
}

func (e *encoder) value(v Value) error {
	switch x := v.(type) {
	case uint8:
		e.bytes([]byte{x})
	case int8:
		e.bytes([]byte{byte(x)})
	case bool:
		if x {
			e.bytes([]byte{1})
		} else {
			e.bytes([]byte{0})
		}
	case uint16:
		binary.LittleEndian.PutUint16(e.buf[:], x)
		e.bytes(e.buf[:2])
	case int16:
		binary.LittleEndian.PutUint16(e.buf[:], uint16(x))
		e.bytes(e.buf[:2])
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	case string:
		e.str(x)
	case *Array:
		e.u32(uint32(x.Type))
		e.u64(uint64(x.n))
		e.bytes(x.raw)
		for _, el := range x.strs {
			e.str(el)
		}
	default:
		return fmt.Errorf("cannot store a %T", v)
	}
	return nil
}

// Strings makes a string array.
func Strings(ss []string) *Array {
	return &Array{Type: TypeString, n: len(ss), strs: slices.Clone(ss)}
}

// Float32s makes a float32 array.
func Float32s(fs []float32) *Array {
	raw := make([]byte, 0, 4*len(fs))
	for _, f := range fs {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(f))
	}
	return &Array{Type: TypeFloat32, n: len(fs), raw: raw}
}

// Int32s makes an int32 array.
func Int32s(is []int32) *Array {
	raw := make([]byte, 0, 4*len(is))
	for _, i := range is {
		raw = binary.LittleEndian.AppendUint32(raw, uint32(i))
	}
	return &Array{Type: TypeInt32, n: len(is), raw: raw}
}
