package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine/synth"
)

// TestEveryShapeLoadsInLlamaCpp: llama.cpp's loader takes the file of
// every built-in shape in every weight format: its metadata and
// vocabulary, as a file of the shape is read before any weight (the
// vocabulary of a 1B-parameter file in F32 is read without writing its
// 5 GB), with the size, BOS and EOS the shape says, and the special
// tokens its architecture's loader looks up by text (llama.cpp refused
// phi-3-mini's, made of made-up words: "_Map_base::at"); and the tiny
// shape whole in every format, weights and all, to a first token.
func TestEveryShapeLoadsInLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	dir := t.TempDir()
	for _, name := range synth.ShapeNames() {
		p := synth.Shapes[name]
		for _, typ := range synth.Formats {
			path := filepath.Join(dir, fmt.Sprintf("%s-%s.gguf", name, typ))
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := synth.WriteMetadata(f, p, typ, 1); err != nil {
				t.Errorf("%s %s: %v", name, typ, err)
			}
			f.Close()
			eos := 2
			if p.EOS > 0 {
				eos = p.EOS
			}
			got := strings.Fields(run(t, "", ref, "vocab", path))
			if want := []string{fmt.Sprint(p.Vocab), "1", fmt.Sprint(eos)}; len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
				t.Errorf("%s %s: llama.cpp reads vocabulary size, BOS, EOS, EOT %v; want %v", name, typ, got, want)
			}
		}
	}
	for _, typ := range synth.Formats {
		path := filepath.Join(dir, fmt.Sprintf("tiny-whole-%s.gguf", typ))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := synth.Write(f, synth.Shapes["tiny"], typ, 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if out := run(t, "", ref, "logits", path, "1"); len(strings.Fields(out)) != synth.Shapes["tiny"].Vocab {
			t.Errorf("tiny %s: llama.cpp gave %d logits", typ, len(strings.Fields(out)))
		}
	}
}
