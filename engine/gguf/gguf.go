// Package gguf reads and writes GGUF files (versions 2 and 3), the format
// of llama.cpp: a header, typed metadata, tensor descriptions, and aligned
// tensor data. Reading checks every count and offset against the file's
// size before allocating, and maps tensor data instead of copying it.
package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Magic starts every GGUF file ("GGUF" little-endian).
const Magic = 0x46554747

// DefaultAlignment of tensor data when general.alignment is absent.
const DefaultAlignment = 32

// ValueType is a metadata value's type.
type ValueType uint32

const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
)

func (t ValueType) String() string {
	names := [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// size of a fixed-size value type, 0 for string and array.
func (t ValueType) size() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// TensorType is a ggml tensor element format.
type TensorType uint32

// The tensor formats tpsbench knows by name; others are read and reported
// but not computed with.
const (
	F32  TensorType = 0
	F16  TensorType = 1
	Q4_0 TensorType = 2
	Q4_1 TensorType = 3
	Q5_0 TensorType = 6
	Q5_1 TensorType = 7
	Q8_0 TensorType = 8
	Q8_1 TensorType = 9
	Q2_K TensorType = 10
	Q3_K TensorType = 11
	Q4_K TensorType = 12
	Q5_K TensorType = 13
	Q6_K TensorType = 14
	Q8_K TensorType = 15
	BF16 TensorType = 30
)

// typeInfo: elements per block and bytes per block.
var typeInfo = map[TensorType]struct {
	name        string
	block, size int
}{
	F32: {"F32", 1, 4}, F16: {"F16", 1, 2}, BF16: {"BF16", 1, 2},
	Q4_0: {"Q4_0", 32, 18}, Q4_1: {"Q4_1", 32, 20}, Q5_0: {"Q5_0", 32, 22}, Q5_1: {"Q5_1", 32, 24},
	Q8_0: {"Q8_0", 32, 34}, Q8_1: {"Q8_1", 32, 36},
	Q2_K: {"Q2_K", 256, 84}, Q3_K: {"Q3_K", 256, 110}, Q4_K: {"Q4_K", 256, 144}, Q5_K: {"Q5_K", 256, 176}, Q6_K: {"Q6_K", 256, 210}, Q8_K: {"Q8_K", 256, 292},
}

func (t TensorType) String() string {
	if ti, ok := typeInfo[t]; ok {
		return ti.name
	}
	return fmt.Sprintf("ggml_type(%d)", uint32(t))
}

// ParseTensorType reads a format name such as "q8_0".
func ParseTensorType(name string) (TensorType, error) {
	for t, ti := range typeInfo {
		if strings.EqualFold(ti.name, name) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown tensor format %q", name)
}

// BlockSize is the number of elements in one block of the format.
func (t TensorType) BlockSize() int { return typeInfo[t].block }

// Known reports whether the format's block layout is known.
func (t TensorType) Known() bool { _, ok := typeInfo[t]; return ok }

// RowBytes is the size in bytes of n elements of the format (n a multiple
// of the block size).
func (t TensorType) RowBytes(n int) int {
	ti := typeInfo[t]
	return n / ti.block * ti.size
}

// Tensor describes one tensor of a file.
type Tensor struct {
	Name   string
	Dims   []uint64 // Dims[0] varies fastest (a row's length)
	Type   TensorType
	Offset uint64 // from the start of the data section
	Data   []byte // the tensor's bytes (mapped when read from a file)
}

// Elements is the product of the dimensions.
func (t *Tensor) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Bytes is the tensor's size in the file.
func (t *Tensor) Bytes() uint64 {
	ti := typeInfo[t.Type]
	return t.Elements() / uint64(ti.block) * uint64(ti.size)
}

// Value is a metadata value: uint8..int64 as their Go types, float32,
// float64, bool, string, or an Array.
type Value any

// Array is a metadata array of strings or of one fixed-size type. Fixed-size
// elements stay as the file's little-endian bytes, so that an array costs
// the memory it takes in the file, not sixteen times it as boxed values.
type Array struct {
	Type ValueType
	n    int
	raw  []byte   // fixed-size elements, little-endian
	strs []string // TypeString
}

// Len is the number of elements.
func (a *Array) Len() int { return a.n }

// At returns element i as a Value of the element type.
func (a *Array) At(i int) Value {
	if a.Type == TypeString {
		return a.strs[i]
	}
	sz := a.Type.size()
	v, _ := decodeFixed(a.Type, a.raw[i*sz:(i+1)*sz])
	return v
}

// Strings returns the elements of a string array.
func (a *Array) Strings() ([]string, error) {
	if a.Type != TypeString {
		return nil, fmt.Errorf("an array of %s, want strings", a.Type)
	}
	return a.strs, nil
}

// Float32s returns the elements of a float32 array.
func (a *Array) Float32s() ([]float32, error) {
	if a.Type != TypeFloat32 {
		return nil, fmt.Errorf("an array of %s, want float32", a.Type)
	}
	out := make([]float32, a.n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.raw[4*i:]))
	}
	return out, nil
}

// Int32s returns the elements of an int32 array.
func (a *Array) Int32s() ([]int32, error) {
	if a.Type != TypeInt32 {
		return nil, fmt.Errorf("an array of %s, want int32", a.Type)
	}
	out := make([]int32, a.n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(a.raw[4*i:]))
	}
	return out, nil
}

// Equal reports whether two arrays hold the same elements.
func (a *Array) Equal(b *Array) bool {
	return a.Type == b.Type && a.n == b.n && bytes.Equal(a.raw, b.raw) && slices.Equal(a.strs, b.strs)
}

// KV is one metadata entry.
type KV struct {
	Key   string
	Value Value
}

// File is a GGUF file's content.
type File struct {
	Version   uint32
	Metadata  []KV
	Tensors   []*Tensor
	Alignment uint64
	DataStart uint64 // offset of the data section in the file

	byName map[string]*Tensor
	closer func() error
}

// Close releases the mapping of a file opened with Open.
func (f *File) Close() error {
	if f.closer != nil {
		c := f.closer
		f.closer = nil
		return c()
	}
	return nil
}

// Get returns a metadata value.
func (f *File) Get(key string) (Value, bool) {
	for _, kv := range f.Metadata {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Tensor returns the tensor with this name.
func (f *File) Tensor(name string) *Tensor {
	if f.byName == nil {
		f.byName = make(map[string]*Tensor, len(f.Tensors))
		for _, t := range f.Tensors {
			f.byName[t.Name] = t
		}
	}
	return f.byName[name]
}

// Uint returns an unsigned integer metadata value of any integer type.
func (f *File) Uint(key string) (uint64, error) {
	v, ok := f.Get(key)
	if !ok {
		return 0, fmt.Errorf("metadata %s is missing", key)
	}
	switch x := v.(type) {
	case uint8:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint32:
		return uint64(x), nil
	case uint64:
		return x, nil
	case int8, int16, int32, int64:
		var n int64
		switch y := x.(type) {
		case int8:
			n = int64(y)
		case int16:
			n = int64(y)
		case int32:
			n = int64(y)
		case int64:
			n = y
		}
		if n < 0 {
			return 0, fmt.Errorf("metadata %s is negative (%d)", key, n)
		}
		return uint64(n), nil
	}
	return 0, fmt.Errorf("metadata %s is a %T, want an integer", key, v)
}

// Float returns a floating-point metadata value.
func (f *File) Float(key string) (float64, error) {
	v, ok := f.Get(key)
	if !ok {
		return 0, fmt.Errorf("metadata %s is missing", key)
	}
	switch x := v.(type) {
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("metadata %s is a %T, want a float", key, v)
}

// String returns a string metadata value.
func (f *File) String(key string) (string, error) {
	v, ok := f.Get(key)
	if !ok {
		return "", fmt.Errorf("metadata %s is missing", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("metadata %s is a %T, want a string", key, v)
	}
	return s, nil
}

// Array returns an array metadata value.
func (f *File) Array(key string) (*Array, error) {
	v, ok := f.Get(key)
	if !ok {
		return nil, fmt.Errorf("metadata %s is missing", key)
	}
	a, ok := v.(*Array)
	if !ok {
		return nil, fmt.Errorf("metadata %s is a %T, want an array", key, v)
	}
	return a, nil
}
