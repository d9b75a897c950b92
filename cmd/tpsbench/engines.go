package main

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/engine"
)

// startEngine starts the embedded engine ef describes in a process of its
// own, serving on a loopback port.
func (f *runFlags) startEngine(cmd *cobra.Command, ef engineFlags, asked int) (url, name string, stop func(), err error) {
	opts, err := ef.options() // flags checked here: usage errors exit as such
	if err != nil {
		return "", "", nil, err
	}
	if runs := opts.Sched.Seqs(); asked > runs {
		fmt.Fprintf(cmd.ErrOrStderr(), "tpsbench: warning: concurrency %d exceeds the %d sequences the engine runs at once (--engine-max-num-seqs, --engine-preset); the others wait, and their TTFT includes the wait\n", asked, runs)
	}
	p, err := startEngineProcess(ef.serveArgs())
	if err != nil {
		return "", "", nil, err
	}
	if !f.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "engine: %s %s at %s, in a process of its own\n", p.Name, p.Info, p.URL)
	}
	if p.Synthetic && f.accuracyFile != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "accuracy: the engine's weights are synthetic, so its answers are noise: --accuracy-file's figures test the wiring here, not the model\n")
	}
	return p.URL, p.Name, p.Stop, nil
}

// askedConcurrency is the most requests the run will have in flight at
// once: its highest concurrency level, or find-max's limit.
func (f *runFlags) askedConcurrency(levels []int) int {
	n := slices.Max(levels)
	if f.findMax {
		n = max(n, f.maxConc)
	}
	return n
}

// startEngines starts the embedded engines the run measures (none when it
// measures a URL), sized for the concurrency asked, and returns them as
// targets with their URLs; stop stops them (call it even on error).
func (f *runFlags) startEngines(cmd *cobra.Command, cfg *runConfig, engines []namedEngine) (tgts []target, engineURLs []string, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	if !cfg.embedded {
		return nil, nil, stop, nil
	}
	if len(engines) == 0 {
		engines = []namedEngine{{"", f.engine}}
	}
	asked := f.askedConcurrency(cfg.levels)
	for _, ne := range engines {
		ef := ne.flags
		// sized for the concurrency asked: an engine running 16
		// sequences under --concurrency 32 queues half the requests,
		// and their TTFT measures the queue
		if !ef.changed("max-num-seqs") && ef.preset == "" {
			ef.maxSeqs = max(ef.maxSeqs, asked)
		}
		url, name, stopEngine, err := f.startEngine(cmd, ef, asked)
		if err != nil {
			return nil, nil, stop, err
		}
		if ef.threads == 0 || ef.threads >= runtime.NumCPU() {
			f.engineCores = runtime.NumCPU()
		}
		stops = append(stops, stopEngine)
		for _, m := range f.models {
			// a name the engine does not serve would otherwise be
			// silently replaced by the one it does
			if m != name {
				return nil, nil, stop, usagef("--model %q: the embedded engine serves %q; choose what it loads with --engine-model (a GGUF file or a built-in shape), or measure another server with --url", m, name)
			}
		}
		label := ne.label
		if label == "" {
			label = name
		}
		tgts = append(tgts, target{name: label, url: url, model: name, api: engineAPI(f.api)})
		engineURLs = append(engineURLs, url)
	}
	return tgts, engineURLs, stop, nil
}

// phases are the steps a run makes of each target: the factor's engines
// and phases, the rate sweep's, else one a concurrency level. autoRates is
// how many rates an auto sweep adds between its two anchor phases.
func (f *runFlags) phases(cmd *cobra.Command, cfg *runConfig) (phases []phase, autoRates int, engines []namedEngine, err error) {
	if phases, engines, err = f.applyFactor(); err != nil {
		return nil, 0, nil, err
	}
	if f.sweepRates != "" {
		phases, autoRates = f.ratePhases(cfg), cfg.autoRates
	}
	if phases == nil {
		for _, c := range cfg.levels {
			phases = append(phases, phase{concurrency: c})
		}
	}
	if len(cfg.imageSizes) > 1 { // a step an image size, the one-liner a VLM's users run first
		one := phases[0]
		phases = phases[:0]
		for i := range cfg.imageSizes {
			ph := one
			ph.image = i
			phases = append(phases, ph)
		}
	}
	return phases, autoRates, engines, nil
}

// phase is one step of a target when a factor shapes the run.
type phase struct {
	label       string
	concurrency int
	rate        float64 // 0: from the flags
	requests    int     // 0: from the flags
	image       int     // which --image-size its requests' images are
}

type namedEngine struct {
	label string
	flags engineFlags
}

// applyFactor turns --factor into the steps and engines of the
// experiment (engine.NewFactor; batch's levels are resolve's).
func (f *runFlags) applyFactor() ([]phase, []namedEngine, error) {
	if f.factor == "" {
		return nil, nil, nil
	}
	base, err := f.engine.options()
	if err != nil {
		return nil, nil, err
	}
	fac, err := engine.NewFactor(f.factor, base, f.requests) // a name resolve has checked
	if err != nil {
		return nil, nil, err
	}
	var engines []namedEngine
	for _, v := range fac.Variants {
		engines = append(engines, namedEngine{v.Label, f.engine.with(v.Options)})
	}
	var phases []phase
	for _, p := range fac.Phases {
		phases = append(phases, phase{label: p.Label, concurrency: p.Concurrency, requests: p.Requests})
	}
	return phases, engines, nil
}
