package engine

import (
	"fmt"
	"strings"
)

// The experiments of docs/design.md, each showing how one factor moves
// TPS on the engine: what engines to compare, and the steps to measure
// them in. A run (tpsbench run --factor, or a Go program) starts each
// variant and measures it.

// FactorNames are the experiments, in docs/design.md's order.
var FactorNames = []string{"batch", "quantization", "prefix-cache", "model-size"}

// Factor is one experiment.
type Factor struct {
	Name string
	// Variants are the engines compared, each from the engine a run
	// configured with one setting changed; none: that engine alone
	Variants []Variant
	// Phases are the steps each variant is measured in; none: the run's
	// own (batch's are its concurrency levels)
	Phases []Phase
}

// Variant is one engine of an experiment.
type Variant struct {
	Label   string
	Options Options
}

// Phase is one step of an experiment.
type Phase struct {
	Label                 string
	Concurrency, Requests int
}

// NewFactor builds the experiment name on base, the engine as configured;
// warmRequests is how many requests the prefix cache's warm step sends
// (at least 4).
func NewFactor(name string, base Options, warmRequests int) (*Factor, error) {
	f := &Factor{Name: name}
	switch name {
	case "batch": // the levels are the run's; the engine is sized for them as for any run
	case "quantization":
		for _, format := range []string{"f16", "q8_0", "q4_0"} {
			o := base
			o.Format = format
			f.Variants = append(f.Variants, Variant{strings.ToUpper(format), o})
		}
	case "model-size":
		for _, shape := range []string{"15m", "110m"} {
			o := base
			o.Model = shape
			f.Variants = append(f.Variants, Variant{shape, o})
		}
	case "prefix-cache":
		o := base
		o.Sched.PrefixCaching = true
		f.Variants = []Variant{{"prefix-cache", o}}
		f.Phases = []Phase{{Label: "cold", Concurrency: 1, Requests: 1}, {Label: "warm", Concurrency: 1, Requests: max(warmRequests, 4)}}
	default:
		return nil, fmt.Errorf("factor %q: want %s", name, strings.Join(FactorNames, ", "))
	}
	return f, nil
}

// ComparesEngines reports whether the experiment compares engine
// configurations, and so cannot run against another server.
func (f *Factor) ComparesEngines() bool { return len(f.Variants) > 0 }
