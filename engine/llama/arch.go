package llama

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tpsbench/tpsbench/engine/gguf"
)

// architecture is how a family's blocks differ from llama's: the engine
// runs the llama block (RMSNorm, attention with RoPE, SwiGLU) and these
// variations of it, chosen by general.architecture.
type architecture struct {
	// neox RoPE turns the pairs (i, i+dims/2) of a head, not (2i, 2i+1)
	neox bool
	// gemma is 1, 2 or 3 for Gemma's variations (readGemma)
	gemma int
}

// architectures are the families the engine runs. Mistral and SmolLM
// files are llama ones; q/k/v biases (qwen2), per-head q/k norms and a
// head size of its own (qwen3), and fused q/k/v and gate/up projections
// (phi3) are read wherever the file has them.
var architectures = map[string]architecture{
	"llama":  {},
	"qwen2":  {neox: true},
	"qwen3":  {neox: true},
	"phi3":   {neox: true},
	"gemma":  {neox: true, gemma: 1},
	"gemma2": {neox: true, gemma: 2},
	"gemma3": {neox: true, gemma: 3},
}

func architectureNames() string {
	var names []string
	for n := range architectures {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// readRopeScaling reads RoPE scaling as llama.cpp does for these
// families: linear (positions divided by the factor), YaRN (with its
// correction dimensions from the original context and llama.cpp's betas,
// 32 and 1), and the attention factor that multiplies every rotated pair.
// Phi-3's long-context factors are tensors (readRopeFreqs).
func readRopeScaling(f *gguf.File, arch string, c *Config) error {
	c.RopeScale = 1
	if v, err := f.Float(key(arch, "rope.scaling.attn_factor")); err == nil {
		if !(v > 0 && v < 1e3) {
			return fmt.Errorf("%s = %v is out of range", key(arch, "rope.scaling.attn_factor"), v)
		}
		c.RopeAttnFactor = float32(v)
	}
	typ, err := f.String(key(arch, "rope.scaling.type"))
	if err != nil || typ == "none" || typ == "longrope" {
		return nil
	}
	if typ != "linear" && typ != "yarn" {
		return fmt.Errorf("%s = %q: linear and yarn RoPE scaling are supported", key(arch, "rope.scaling.type"), typ)
	}
	factor, err := f.Float(key(arch, "rope.scaling.factor"))
	if err != nil || factor == 0 {
		return nil // no factor: llama.cpp scales by 1
	}
	if !(factor >= 1 && factor <= 1<<16) {
		return fmt.Errorf("%s: want a factor of 1 or more with %s RoPE scaling", key(arch, "rope.scaling.factor"), typ)
	}
	c.RopeScale = float32(1 / factor)
	if typ == "yarn" {
		orig, err := origContext(f, arch, c)
		if err != nil {
			return err
		}
		c.RopeYaRN, c.RopeYaRNDims = true, yarnCorrDims(c.RopeDim, orig, c.RopeBase, 32, 1)
	}
	return nil
}

// origContext is the context the model was trained at before its RoPE
// scaling (rope.scaling.original_context_length, else context_length).
func origContext(f *gguf.File, arch string, c *Config) (int, error) {
	v, err := f.Uint(key(arch, "rope.scaling.original_context_length"))
	if err != nil {
		return c.Context, nil
	}
	if v == 0 || v > 1<<24 {
		return 0, fmt.Errorf("%s = %d is out of range", key(arch, "rope.scaling.original_context_length"), v)
	}
	return int(v), nil
}

// yarnCorrDims are YaRN's correction dimensions, in float32 as ggml's
// ggml_rope_yarn_corr_dims: the pairs below the first turn more than
// betaFast times over the original context and keep their angle; those
// above the second, fewer than betaSlow times, are scaled.
func yarnCorrDims(dims, origCtx int, base, betaFast, betaSlow float32) [2]float32 {
	dim := func(rot float32) float32 {
		return float32(dims) * float32(math.Log(float64(float32(origCtx)/(rot*2*math.Pi)))) / (2 * float32(math.Log(float64(base))))
	}
	start := float32(math.Floor(float64(dim(betaFast))))
	end := float32(math.Ceil(float64(dim(betaSlow))))
	return [2]float32{max(0, start), min(float32(dims-1), end)}
}

// readRopeFreqs reads the per-pair divisors of the rotation frequencies:
// rope_freqs.weight (Llama 3.1 and later), or Phi-3's rope_factors_long
// and rope_factors_short, the long ones where the context the engine
// serves (the file's whole context) is longer than the original one, as
// llama.cpp chooses by its context size.
func readRopeFreqs(f *gguf.File, arch string, c *Config) error {
	name := "rope_freqs.weight"
	if f.Tensor(name) == nil && f.Tensor("rope_factors_long.weight") != nil {
		orig, err := origContext(f, arch, c)
		if err != nil {
			return err
		}
		name = "rope_factors_short.weight"
		if c.Context > orig {
			name = "rope_factors_long.weight"
		}
	}
	t := f.Tensor(name)
	if t == nil {
		if name != "rope_freqs.weight" {
			return fmt.Errorf("tensor %s is missing (the file has rope_factors_long.weight)", name)
		}
		return nil
	}
	if t.Type != gguf.F32 || len(t.Dims) != 1 || int(t.Dims[0]) != c.RopeDim/2 {
		return fmt.Errorf("tensor %s: want %d F32 values, have %v of %s", name, c.RopeDim/2, t.Dims, t.Type)
	}
	m, err := newMatrix(t)
	if err != nil {
		return err
	}
	c.RopeFreqs = slices.Clone(m.f32)
	for i, v := range c.RopeFreqs {
		if !(v > 0) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("tensor %s: value %d is %v", name, i, v)
		}
	}
	return nil
}

// splitFused puts views of a layer's fused tensors into views under the
// names of the separate ones: attn_qkv (rows q, then k, then v) and an
// ffn_up of twice the feed-forward length with no ffn_gate (rows gate,
// then up), as Phi-3 files hold them. The views share the file's bytes.
func splitFused(f *gguf.File, prefix string, c Config, views map[string]*gguf.Tensor) error {
	rows := func(t *gguf.Tensor, name string, from, to int) {
		rb := t.Type.RowBytes(int(t.Dims[0]))
		views[prefix+name] = &gguf.Tensor{Name: prefix + name, Type: t.Type, Dims: []uint64{t.Dims[0], uint64(to - from)},
			Data: t.Data[from*rb : to*rb]}
	}
	if t := f.Tensor(prefix + "attn_qkv.weight"); t != nil {
		q, kv := c.QDim(), c.KVDim()
		if len(t.Dims) != 2 || int(t.Dims[0]) != c.Dim || int(t.Dims[1]) != q+2*kv {
			return fmt.Errorf("tensor %sattn_qkv.weight has shape %v, want [%d %d]", prefix, t.Dims, c.Dim, q+2*kv)
		}
		rows(t, "attn_q.weight", 0, q)
		rows(t, "attn_k.weight", q, q+kv)
		rows(t, "attn_v.weight", q+kv, q+2*kv)
	}
	if t := f.Tensor(prefix + "ffn_up.weight"); t != nil && f.Tensor(prefix+"ffn_gate.weight") == nil &&
		len(t.Dims) == 2 && int(t.Dims[1]) == 2*c.Hidden {
		rows(t, "ffn_gate.weight", 0, c.Hidden)
		rows(t, "ffn_up.weight", c.Hidden, 2*c.Hidden)
	}
	return nil
}

// readGemma sets Gemma's variations, with llama.cpp's defaults where a
// file is silent: embeddings scaled by sqrt(Dim) and a GELU feed-forward
// (all); sliding-window attention on most layers (Gemma 2: every other,
// window 4096; Gemma 3: five of six, its own RoPE base, 10000 unless the
// file says); scores and logits soft-capped (Gemma 2: 50 and 30). The
// query scale is 1/sqrt(head size), but 1/sqrt(Dim/Heads) for the 27B
// models, known by their layer counts. Post-norms and q/k norms are read
// wherever the file has them.
func readGemma(f *gguf.File, arch string, version int, c *Config) error {
	c.EmbedScale = float32(math.Sqrt(float64(c.Dim)))
	c.GELU = true
	c.AttnScale = float32(1 / math.Sqrt(float64(c.HeadDim())))
	if version == 2 && c.Layers == 46 || version == 3 && c.Layers == 62 {
		c.AttnScale = float32(1 / math.Sqrt(float64(c.Dim/c.Heads)))
	}
	if version < 2 {
		return nil
	}
	getFloat := func(k string, def float64) float64 {
		if v, err := f.Float(key(arch, k)); err == nil {
			return v
		}
		return def
	}
	getInt := func(k string, def int) (int, error) {
		v, err := f.Uint(key(arch, k))
		if err != nil {
			if _, present := f.Get(key(arch, k)); present {
				return 0, fmt.Errorf("%s: want one number (per-layer arrays are not supported)", key(arch, k))
			}
			return def, nil
		}
		if v > 1<<24 {
			return 0, fmt.Errorf("%s = %d is out of range", key(arch, k), v)
		}
		return int(v), nil
	}
	var err error
	c.RopeBaseSWA = c.RopeBase
	window, pattern := 4096, 2
	if version == 2 {
		c.AttnSoftcap, c.FinalSoftcap = float32(getFloat("attn_logit_softcapping", 50)), float32(getFloat("final_logit_softcapping", 30))
	} else {
		c.RopeBaseSWA, c.FinalSoftcap = 10000, float32(getFloat("final_logit_softcapping", 0))
		window, pattern = 0, 6
	}
	c.RopeBaseSWA = float32(getFloat("rope.freq_base_swa", float64(c.RopeBaseSWA)))
	if c.Window, err = getInt("attention.sliding_window", window); err != nil {
		return err
	}
	if c.SWAPattern, err = getInt("attention.sliding_window_pattern", pattern); err != nil {
		return err
	}
	if c.AttnSoftcap < 0 || c.FinalSoftcap < 0 || !(c.RopeBaseSWA > 0) {
		return fmt.Errorf("%s: negative soft-capping or a RoPE base that is not positive", arch)
	}
	return nil
}

// Slides reports whether layer l attends through the sliding window
// (llama.cpp's standard pattern: l % SWAPattern < SWAPattern-1; a pattern
// of 0 slides every layer).
func (c Config) Slides(l int) bool {
	if c.Window <= 0 {
		return false
	}
	return c.SWAPattern == 0 || l%c.SWAPattern < c.SWAPattern-1
}
