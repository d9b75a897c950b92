package roofline

import (
	"math"
	"testing"
)

func TestMemoryBound(t *testing.T) {
	m, _ := FindModel("llama-2-7b")
	h, _ := FindHardware("a100-80gb")
	e := Case{Model: m, BytesPerParam: 2, KVBytes: 2, Hardware: h, Batch: 1, Context: 1024}.Run()
	// weights 6.74e9 x 2 B; KV 1024 x 32 layers x 2 x 4096 x 2 B = 536.9 MB
	wantBytes := 6.74e9*2 + 1024*32*2*4096*2
	if math.Abs(e.WeightBytes+e.KVBytes-wantBytes) > 1 {
		t.Fatalf("bytes a step %v, want %v", e.WeightBytes+e.KVBytes, wantBytes)
	}
	if want := 2039e9 / wantBytes; math.Abs(e.SystemTPS-want) > 1e-9*want || e.Binds != "memory" {
		t.Fatalf("TPS %v (%s), want %v memory-bound", e.SystemTPS, e.Binds, want)
	}
	// A huge batch turns compute-bound.
	e = Case{Model: m, BytesPerParam: 2, KVBytes: 2, Hardware: h, Batch: 4096, Context: 16}.Run()
	if e.Binds != "compute" {
		t.Errorf("batch 4096 binds %s", e.Binds)
	}
}

func TestQuantizationScalesBytes(t *testing.T) {
	m, _ := FindModel("llama-3-8b")
	h, _ := FindHardware("rtx-4090")
	f16 := Case{Model: m, BytesPerParam: Formats["f16"], Hardware: h, Batch: 1}.Run()
	int4 := Case{Model: m, BytesPerParam: Formats["int4"], Hardware: h, Batch: 1}.Run()
	if r := int4.SystemTPS / f16.SystemTPS; math.Abs(r-4) > 1e-9 {
		t.Errorf("INT4 / FP16 at no context = %v, want 4", r)
	}
}

func TestMixtureOfExpertsTouchesMoreExpertsWithBatch(t *testing.T) {
	m, _ := FindModel("mixtral-8x7b")
	h, _ := FindHardware("h100-sxm")
	one := Case{Model: m, BytesPerParam: 1, Hardware: h, Batch: 1}.Run()
	// one token routes to 2 of 8 experts: shared + a quarter of the experts
	if want := (m.Params - m.ExpertParams) + m.ExpertParams/4; math.Abs(one.WeightBytes-want) > 1 {
		t.Errorf("batch 1 reads %v, want %v", one.WeightBytes, want)
	}
	big := Case{Model: m, BytesPerParam: 1, Hardware: h, Batch: 64}.Run()
	if math.Abs(big.WeightBytes-m.Params) > 1e-3*m.Params {
		t.Errorf("batch 64 reads %v, want nearly all %v", big.WeightBytes, m.Params)
	}
}

func TestCatalogue(t *testing.T) {
	for _, name := range []string{"h200", "h100-sxm", "h100-pcie", "a100-40gb", "a100-80gb", "l40s", "l4", "rtx-4090", "rtx-3090", "mi300x", "m2-max"} {
		if h, err := FindHardware(name); err != nil || h.Bandwidth <= 0 || h.TFLOPS <= 0 {
			t.Errorf("%s: %+v %v", name, h, err)
		}
	}
	if _, err := FindHardware("tpu-v9"); err == nil {
		t.Error("unknown hardware found")
	}
	for _, m := range Models {
		if m.Params <= 0 || m.Layers <= 0 || m.KVHeads <= 0 || m.HeadDim <= 0 {
			t.Errorf("%+v", m)
		}
	}
}

// TestMemoryCapacity: Llama 3 8B in F16 on an 80 GB H100 at 1,024 tokens a
// sequence. Weights 8.03e9 x 2 B = 16.06 GB; KV a sequence 1,024 tokens x
// 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 B = 134,217,728 B; so
// (80e9 - 16.06e9) / 134,217,728 = 476.4: 476 sequences fit, 477 do not.
func TestMemoryCapacity(t *testing.T) {
	m, _ := FindModel("llama-3-8b")
	h, _ := FindHardware("h100-sxm")
	c := Case{Model: m, BytesPerParam: 2, KVBytes: 2, Hardware: h, Context: 1024}
	if n, bounded := c.MaxBatch(); n != 476 || !bounded {
		t.Fatalf("max batch %d (bounded %v), want 476", n, bounded)
	}
	for _, tc := range []struct {
		batch int
		fits  bool
	}{{476, true}, {477, false}} {
		c.Batch = tc.batch
		e := c.Run()
		if want := 16.06e9 + float64(tc.batch)*134217728; math.Abs(e.ResidentBytes-want) > 1 {
			t.Errorf("batch %d: resident %v, want %v", tc.batch, e.ResidentBytes, want)
		}
		if fits, known := e.Fits(h); fits != tc.fits || !known {
			t.Errorf("batch %d: fits %v (known %v), want %v", tc.batch, fits, known, tc.fits)
		}
	}
	// Mixtral's every expert stays resident though a step reads two.
	mx, _ := FindModel("mixtral-8x7b")
	e := Case{Model: mx, BytesPerParam: 1, Hardware: h, Batch: 1}.Run()
	if e.ResidentBytes != mx.Params || e.WeightBytes >= mx.Params {
		t.Errorf("mixtral resident %v, read a step %v, params %v", e.ResidentBytes, e.WeightBytes, mx.Params)
	}
	// Weights larger than memory leave room for no sequence; unknown
	// memory, or no KV cache, bounds nothing.
	big, _ := FindModel("llama-3-70b")
	if n, bounded := (Case{Model: big, BytesPerParam: 2, KVBytes: 2, Hardware: h, Context: 1024}).MaxBatch(); n != 0 || !bounded {
		t.Errorf("70B F16 on 80 GB: %d sequences", n)
	}
	if _, bounded := (Case{Model: m, BytesPerParam: 2, KVBytes: 2, Hardware: Hardware{Name: "this", Bandwidth: 10}, Context: 1024}).MaxBatch(); bounded {
		t.Error("unknown memory bounded the batch")
	}
	if _, bounded := c.MaxBatch(); !bounded {
		t.Error("a context of 1,024 left the batch unbounded")
	}
	c.Context = 0
	if _, bounded := c.MaxBatch(); bounded {
		t.Error("no KV cache bounded the batch")
	}
}

// TestMeasureBandwidthReads: the bandwidth probe runs the engine's own
// product over the bytes asked (a plain sum over a buffer was bound by its
// adds, not by memory) and gives a rate.
func TestMeasureBandwidthReads(t *testing.T) {
	bw, err := MeasureBandwidth(1, 4<<20)
	if err != nil || !(bw > 0) {
		t.Fatalf("%v GB/s, %v", bw, err)
	}
}
