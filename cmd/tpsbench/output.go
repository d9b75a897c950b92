package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/internal/outfile"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/report"
)

// outputFlags are the flags every command that prints a report shares.
type outputFlags struct {
	format     string
	out        string
	targetUse  []string
	slo        string
	sloShare   float64
	convention string
	force      bool
}

func (o *outputFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "report format: text, json, csv, markdown or html (one self-contained page with charts)")
	f.StringVar(&o.convention, "convention", "tpsbench", "report TPOT and ITL as another tool defines them: tpsbench, vllm, guidellm or genai-perf")
	f.StringVar(&o.out, "out", "", "write the report to this file instead of stdout")
	f.BoolVar(&o.force, "force", false, "replace output files that exist (otherwise refused)")
	f.StringSliceVar(&o.targetUse, "target-use", nil, "check the target of a use case (docs/design.md): chat (30 TPS per request), code (50 TPS per request), batch (200 TPS system)")
	f.StringVar(&o.slo, "slo", "", "custom targets, e.g. ttft=500ms,tpot=40ms,e2e=10s,request_tps=30,decode_tps=40,system_tps=200")
	f.Float64Var(&o.sloShare, "slo-share", metrics.DefaultShare, "share of requests that must meet each per-request target")
}

// targets parses the target flags.
func (o *outputFlags) targets() (metrics.Targets, error) {
	if err := report.CheckFormat(o.format); err != nil {
		return metrics.Targets{}, usageError{fmt.Errorf("--format: %w", err)}
	}
	if err := metrics.CheckConvention(o.convention); err != nil {
		return metrics.Targets{}, usageError{fmt.Errorf("--convention: %w", err)}
	}
	if o.sloShare <= 0 || o.sloShare > 1 {
		return metrics.Targets{}, usagef("--slo-share %v: want a share above 0 and at most 1", o.sloShare)
	}
	ts := metrics.Targets{Share: o.sloShare}
	for _, u := range o.targetUse {
		t, err := metrics.UseCase(u)
		if err != nil {
			return ts, usageError{fmt.Errorf("--target-use: %w", err)}
		}
		ts.List = append(ts.List, t)
	}
	custom, err := metrics.ParseSLO(o.slo)
	if err != nil {
		return ts, usageError{fmt.Errorf("--slo: %w", err)}
	}
	ts.List = append(ts.List, custom...)
	return ts, nil
}

// steps returns an empty grouping of steps under the flags' convention.
func (o *outputFlags) steps(targets metrics.Targets) *metrics.Steps {
	return metrics.NewSteps(targets).WithConvention(o.convention)
}

// render writes the report where asked and turns unmet targets into exit
// code 3.
func (o *outputFlags) render(stdout io.Writer, r *report.Report) error {
	if o.out == "" {
		if err := report.Render(stdout, o.format, r); err != nil {
			return fmt.Errorf("writing report: %w", err)
		}
	} else {
		// the report appears whole or not at all, and replaces a file
		// only when asked
		f, err := outfile.Create(o.out, o.force)
		if err != nil {
			return fmt.Errorf("creating report: %w", err)
		}
		defer f.Abort()
		if err := report.Render(f, o.format, r); err != nil {
			return fmt.Errorf("writing report %s: %w", o.out, err)
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("writing report: %w", err)
		}
	}
	if !r.Pass {
		return exitCode(exitTargetsFail)
	}
	return nil
}
