package main

import (
	"slices"
	"strings"

	"github.com/tpsbench/tpsbench/load"
)

// rateShapes are --rate-shape's open loops, by name: each reads the rest
// of the flag's value (NAME:SPEC) with --arrivals' gaps. A shape of the
// load package is one line here.
var rateShapes = map[string]struct {
	parse func(spec string, gaps load.Gaps) (load.Pacer, error)
	spec  string // how the shape reads its SPEC, for help
}{
	"sine":   {pacer(load.ParseSine), load.SineSpec},
	"stages": {pacer(load.ParseStages), load.StagesSpec},
}

// pacer makes a shape's parser one of rateShapes'.
func pacer[P load.Pacer](parse func(string, load.Gaps) (P, error)) func(string, load.Gaps) (load.Pacer, error) {
	return func(spec string, gaps load.Gaps) (load.Pacer, error) { return parse(spec, gaps) }
}

// rateShapeHelp is --rate-shape's help: every shape and its spec.
func rateShapeHelp() string {
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range rateShapes {
			if !yield(name) {
				return
			}
		}
	})
	help := make([]string, len(names))
	for i, name := range names {
		help[i] = name + ":" + rateShapes[name].spec
	}
	return "an open-loop rate that changes as the step goes, NAME:SPEC, in place of --rate: " + strings.Join(help, "; ")
}

// resolveRateShape reads --rate-shape into the open loop it names, spread
// as --arrivals says.
func resolveRateShape(f *runFlags, gaps load.Gaps) (load.Pacer, error) {
	if f.rateShape == "" {
		return nil, nil
	}
	for _, other := range []struct {
		name  string
		given bool
	}{{"--rate", f.rate != 0}, {"--sweep-rates", f.sweepRates != ""}, {"--sweep", f.sweep != ""}, {"--ramp-up-strategy", f.rampStrategy != ""},
		{"--ramp-up-duration", f.rampUp != 0}, {"--trace", f.trace != ""}, {"--find-max", f.findMax}} {
		if other.given {
			return nil, usagef("--rate-shape sets the rate itself as the step goes: not with %s", other.name)
		}
	}
	name, spec, _ := strings.Cut(f.rateShape, ":")
	shape, ok := rateShapes[name]
	if !ok {
		return nil, usagef("--rate-shape %q: %s", f.rateShape, rateShapeHelp())
	}
	p, err := shape.parse(spec, gaps)
	if err != nil {
		return nil, usagef("--rate-shape %s: %v", f.rateShape, err)
	}
	return p, nil
}
