package engine_test

import (
	"testing"

	"github.com/tpsbench/tpsbench/engine"
)

func TestFactors(t *testing.T) {
	base := engine.Options{Model: "15m", Format: "f32", Threads: 2}
	for _, c := range []struct {
		name     string
		variants []string
		phases   int
	}{
		{"batch", nil, 0},
		{"quantization", []string{"F16", "Q8_0", "Q4_0"}, 0},
		{"model-size", []string{"15m", "110m"}, 0},
		{"prefix-cache", []string{"prefix-cache"}, 2},
	} {
		f, err := engine.NewFactor(c.name, base, 2)
		if err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, v := range f.Variants {
			labels = append(labels, v.Label)
			if v.Options.Threads != base.Threads {
				t.Errorf("%s: variant %s lost the base's settings: %+v", c.name, v.Label, v.Options)
			}
		}
		if len(labels) != len(c.variants) || len(f.Phases) != c.phases || f.ComparesEngines() != (len(c.variants) > 0) {
			t.Errorf("%s: variants %v, phases %+v", c.name, labels, f.Phases)
		}
		for i, l := range labels {
			if l != c.variants[i] {
				t.Errorf("%s: variants %v, want %v", c.name, labels, c.variants)
			}
		}
	}
	q, _ := engine.NewFactor("quantization", base, 0)
	if q.Variants[1].Options.Format != "q8_0" || base.Format != "f32" {
		t.Errorf("quantization's second engine: %+v (base %+v)", q.Variants[1].Options, base)
	}
	p, _ := engine.NewFactor("prefix-cache", base, 2)
	if !p.Variants[0].Options.Sched.PrefixCaching || p.Phases[1].Requests != 4 || p.Phases[0].Requests != 1 {
		t.Errorf("prefix-cache: %+v", p)
	}
	if _, err := engine.NewFactor("temperature", base, 0); err == nil {
		t.Error("an unknown factor was accepted")
	}
}
