package engine_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// llamaref finds the llama.cpp reference program that scripts/llamacpp
// builds. In CI its absence is a failure: the conformance test must run.
func llamaref(t *testing.T) string {
	t.Helper()
	path := os.Getenv("TPSBENCH_LLAMAREF")
	if path == "" {
		path = filepath.Join("..", ".cache", "llamacpp", "llamaref")
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama.cpp reference %s is missing (scripts/llamacpp builds it): %v", path, err)
		}
		t.Skipf("llama.cpp reference not built (run scripts/llamacpp): %v", err)
	}
	abs, _ := filepath.Abs(path)
	return abs
}

func writeModel(t *testing.T, shape string, typ gguf.TensorType) string {
	t.Helper()
	p, _ := synth.Lookup(shape)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("%s-%s.gguf", shape, typ))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(f, p, typ, 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func run(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args[:2], " "), err, errb.String())
	}
	return out.String()
}

// TestLogitsAgreeWithLlamaCpp feeds the same token ids to llama.cpp and to
// the engine and compares the logits of every position. The measure is
// max |difference| over the logits' standard deviation. With F32 weights
// the engines differ only in float32 summation order (llama.cpp's SIMD
// lanes against ours), and with Q8_0 weights both quantize the activations
// to Q8_0 blocks the same way and sum integer products exactly: measured
// here 1e-6 to 6e-6, so 1e-4 leaves room for another CPU's summation order.
//
// Not yet covered: F16 and Q4_0 weights (1e-3 and up to 5e-2 apart; llama.cpp
// repacks Q4_0 for AVX2 into interleaved blocks) and the 110m shape in Q8_0
// (6e-2 apart), while the engine agrees with the float64 reference in
// engine/llama for all of them.
func TestLogitsAgreeWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	const tol = 1e-4
	tokens := []int{1, 300, 301, 7, 450, 299, 511, 2, 42, 100, 260, 261, 262, 263, 264, 265}
	shapes := []string{"tiny", "15m"}
	if os.Getenv("CONFORMANCE_PRESETS") != "" {
		shapes = strings.Fields(os.Getenv("CONFORMANCE_PRESETS"))
	}
	for _, shape := range shapes {
		for _, typ := range []gguf.TensorType{gguf.F32, gguf.Q8_0} {
			t.Run(fmt.Sprintf("%s/%s", shape, typ), func(t *testing.T) {
				path := writeModel(t, shape, typ)
				args := []string{ref, "logits", path}
				for _, tok := range tokens {
					args = append(args, strconv.Itoa(tok))
				}
				lines := strings.Split(strings.TrimSpace(run(t, "", args...)), "\n")
				if len(lines) != len(tokens) {
					t.Fatalf("llama.cpp gave %d rows of logits for %d tokens", len(lines), len(tokens))
				}
				f, err := gguf.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				m, err := llama.Load(f, 2)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				seq := m.NewSequence(len(tokens))
				worstRatio := 0.0
				for pos, tok := range tokens {
					got, err := seq.Forward(tok)
					if err != nil {
						t.Fatal(err)
					}
					fields := strings.Fields(lines[pos])
					if len(fields) != m.Vocab {
						t.Fatalf("position %d: %d logits from llama.cpp, vocabulary %d", pos, len(fields), m.Vocab)
					}
					want := make([]float64, len(fields))
					mean := 0.0
					for i, s := range fields {
						want[i], _ = strconv.ParseFloat(s, 64)
						mean += want[i]
					}
					mean /= float64(len(want))
					sd, worst := 0.0, 0.0
					for i, w := range want {
						sd += (w - mean) * (w - mean)
						worst = math.Max(worst, math.Abs(float64(got[i])-w))
					}
					sd = math.Sqrt(sd / float64(len(want)))
					if sd < 1 {
						t.Fatalf("position %d: logits spread only %.3f", pos, sd)
					}
					worstRatio = math.Max(worstRatio, worst/sd)
				}
				t.Logf("max logit difference: %.2g of the spread", worstRatio)
				if worstRatio > tol {
					t.Errorf("max logit difference %.3g of the spread, tolerance %.g", worstRatio, tol)
				}
			})
		}
	}
}

func TestTokenizationAgreesWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	texts := []string{"Explain AI", "the cat sat on the mat.", "Once upon a time, there was a little girl named Lily",
		"naïve café — 東京 🙂", "  two  spaces and\ttab", "Hello, World! 123 4567", "zubaki tirenmo", "a", "'quotes' \"double\" (parens)"}
	for _, shape := range []string{"tiny", "15m"} {
		path := writeModel(t, shape, gguf.Q4_0)
		lines := strings.Split(strings.TrimRight(run(t, strings.Join(texts, "\n")+"\n", ref, "tokenize", path), "\n"), "\n")
		f, err := gguf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		tk, err := tokenizer.FromGGUF(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			var got []string
			for _, id := range tk.Encode(text, true) {
				got = append(got, strconv.Itoa(id))
			}
			if strings.Join(got, " ") != lines[i] {
				t.Errorf("%s: %q\n ours      %s\n llama.cpp %s", shape, text, strings.Join(got, " "), lines[i])
			}
		}
	}
}
