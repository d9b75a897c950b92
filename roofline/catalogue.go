// Package roofline estimates the decode speed a model can reach on given
// hardware: each decoding step reads the weights once (for the whole batch)
// and every sequence's KV cache, so tokens/s is bounded by memory
// bandwidth / bytes read a step; it is also bounded by compute, 2 FLOPs a
// parameter a token. Whichever bound is lower binds.
package roofline

import (
	"fmt"
	"sort"
	"strings"
)

// Hardware is an accelerator or machine.
type Hardware struct {
	Name      string
	Bandwidth float64 // memory bandwidth, GB/s
	TFLOPS    float64 // dense FP16/BF16 tensor throughput (CPU: FP32 FMA), TFLOP/s
	MemoryGB  float64
	Note      string
}

// Machines is the hardware catalogue (vendors' datasheet figures; dense,
// without sparsity).
var Machines = []Hardware{
	{"h200", 4800, 989, 141, "NVIDIA H200 SXM"},
	{"h100-sxm", 3350, 989, 80, "NVIDIA H100 SXM5"},
	{"h100-pcie", 2000, 756, 80, "NVIDIA H100 PCIe"},
	{"a100-80gb", 2039, 312, 80, "NVIDIA A100 80 GB SXM"},
	{"a100-40gb", 1555, 312, 40, "NVIDIA A100 40 GB"},
	{"l40s", 864, 362, 48, "NVIDIA L40S"},
	{"l4", 300, 121, 24, "NVIDIA L4"},
	{"rtx-4090", 1008, 165, 24, "NVIDIA GeForce RTX 4090"},
	{"rtx-3090", 936, 71, 24, "NVIDIA GeForce RTX 3090"},
	{"mi300x", 5300, 1307, 192, "AMD Instinct MI300X"},
	{"m2-max", 400, 27, 96, "Apple M2 Max"},
	{"m3-max", 400, 28, 128, "Apple M3 Max"},
	{"m4-max", 546, 34, 128, "Apple M4 Max"},
	{"m2-ultra", 800, 54, 192, "Apple M2 Ultra"},
}

// Model is a model's shape, as far as the roofline needs it.
type Model struct {
	Name    string
	Params  float64 // all parameters
	Active  float64 // parameters a token uses (mixture of experts), 0 = Params
	Layers  int
	KVHeads int
	HeadDim int
	Heads   int
	// Mixture of experts: the expert part of Params, and experts per
	// layer and per token, to estimate how many experts a batch touches.
	ExpertParams  float64
	Experts       int
	ExpertsPerTok int
}

// Models is the model catalogue (published configurations).
var Models = []Model{
	{Name: "llama-2-7b", Params: 6.74e9, Layers: 32, Heads: 32, KVHeads: 32, HeadDim: 128},
	{Name: "llama-2-13b", Params: 13.0e9, Layers: 40, Heads: 40, KVHeads: 40, HeadDim: 128},
	{Name: "llama-2-70b", Params: 69.0e9, Layers: 80, Heads: 64, KVHeads: 8, HeadDim: 128},
	{Name: "llama-3-8b", Params: 8.03e9, Layers: 32, Heads: 32, KVHeads: 8, HeadDim: 128},
	{Name: "llama-3-70b", Params: 70.6e9, Layers: 80, Heads: 64, KVHeads: 8, HeadDim: 128},
	{Name: "mistral-7b", Params: 7.24e9, Layers: 32, Heads: 32, KVHeads: 8, HeadDim: 128},
	{Name: "mixtral-8x7b", Params: 46.7e9, Active: 12.9e9, Layers: 32, Heads: 32, KVHeads: 8, HeadDim: 128,
		ExpertParams: 45.1e9, Experts: 8, ExpertsPerTok: 2},
	{Name: "qwen-2.5-7b", Params: 7.62e9, Layers: 28, Heads: 28, KVHeads: 4, HeadDim: 128},
}

// Formats maps weight formats to bytes a parameter (GGUF block formats
// include their scales).
var Formats = map[string]float64{
	"f32": 4, "f16": 2, "bf16": 2, "fp16": 2, "int8": 1, "fp8": 1, "q8_0": 34.0 / 32, "int4": 0.5, "q4_0": 18.0 / 32,
}

// FindHardware looks a machine up by name.
func FindHardware(name string) (Hardware, error) {
	for _, h := range Machines {
		if strings.EqualFold(h.Name, name) {
			return h, nil
		}
	}
	var names []string
	for _, h := range Machines {
		names = append(names, h.Name)
	}
	return Hardware{}, fmt.Errorf("unknown hardware %q (known: %s, this)", name, strings.Join(names, ", "))
}

// FindModel looks a model up by name.
func FindModel(name string) (Model, error) {
	for _, m := range Models {
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
	}
	var names []string
	for _, m := range Models {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return Model{}, fmt.Errorf("unknown model %q (known: %s, a built-in shape, or a GGUF file)", name, strings.Join(names, ", "))
}
