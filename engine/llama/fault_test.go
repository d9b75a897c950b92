package llama_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
)

// TestTruncatedFileFailsSteps: weights are read from the mapped file (the
// embeddings always, the rest where they are not packed), and a page of a
// file truncated since raises SIGBUS. That fails the step (and every later
// one) with an error; it killed `serve` before. Token 500's embedding is
// 125 kB into the data, past the page that holds its start (which stays
// readable up to the end of the page).
func TestTruncatedFileFailsSteps(t *testing.T) {
	for _, threads := range []int{1, 2} {
		path := filepath.Join(t.TempDir(), "m.gguf")
		b, err := synth.Bytes(synth.Shapes["tiny"], gguf.F32, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := gguf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := llama.Load(f, threads)
		if err != nil {
			t.Fatal(err)
		}
		seq := m.NewSequence(8)
		if _, err := seq.Forward(1); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, int64(f.DataStart)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if _, err := seq.Forward(500); err == nil || !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("threads %d, step %d after truncation: error %v, want one naming the truncation", threads, i, err)
			}
		}
		m.Close()
		f.Close()
	}
}
