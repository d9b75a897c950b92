package engine

import (
	"fmt"
	"io"
	"sort"

	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
)

// Description is what the engine reads of a model without serving it:
// its file, its shape, and the bytes a step of decoding reads.
type Description struct {
	Name string // as the server would call it
	// the file's: its version, tensors and metadata keys, the
	// architecture and name it gives, and its weight formats with their
	// elements ("Q4_0 (1024 elements)")
	Version                int
	Tensors, MetadataKeys  int
	Architecture, FileName string
	Formats                []string
	Config                 llama.Config
	Params                 int
	// BytesPerToken is what a step reads as the engine lays the weights
	// out on this CPU, FileBytesPerToken in the file's own formats.
	BytesPerToken, FileBytesPerToken int
	// KVBytesPerPosition is a position's keys and values in F32 (F16
	// takes half).
	KVBytesPerPosition int
}

// Describe reads a model as Options name it (a GGUF file, or a built-in
// shape made in format with seed's weights) and describes it.
func Describe(model, format string, seed uint64) (Description, error) {
	f, name, err := openModel(model, format, seed)
	if err != nil {
		return Description{}, err
	}
	defer f.Close()
	d := Description{Name: name, Version: int(f.Version), Tensors: len(f.Tensors), MetadataKeys: len(f.Metadata)}
	d.Architecture, _ = f.String("general.architecture")
	d.FileName, _ = f.String("general.name")
	elements := map[string]uint64{}
	for _, t := range f.Tensors {
		elements[t.Type.String()] += t.Elements()
	}
	for k, n := range elements {
		d.Formats = append(d.Formats, fmt.Sprintf("%s (%d elements)", k, n))
	}
	sort.Strings(d.Formats)
	if d.Config, err = llama.ConfigFromGGUF(f); err != nil {
		return d, fmt.Errorf("%s: %w", model, err)
	}
	m, err := llama.Load(f, 1)
	if err != nil {
		return d, fmt.Errorf("%s: %w", model, err)
	}
	defer m.Close()
	d.Params, d.BytesPerToken, d.FileBytesPerToken = m.Params(), m.BytesPerToken(), m.FileBytesPerToken()
	d.KVBytesPerPosition = 4 * 2 * d.Config.Layers * d.Config.KVDim()
	return d, nil
}

// WriteShape writes the built-in shape as a GGUF file in format with
// seed's dummy weights: the same shape, format and seed, the same bytes.
func WriteShape(w io.Writer, shape, format string, seed uint64) error {
	p, err := synth.Lookup(shape)
	if err != nil {
		return err
	}
	typ, err := formatOf(format)
	if err != nil {
		return err
	}
	return synth.Write(w, p, typ, seed)
}
