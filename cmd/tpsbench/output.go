package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
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
	// percentiles are --percentiles as given, and as read
	percentiles    string
	percentileList []float64
	slice          time.Duration
	costPerHour    float64
	force          bool
	// traceTiming adds the steps' HTTP phases to a text report
	traceTiming bool
	// maxErrorRate: a step whose share of failed requests is over it (or
	// whose every request failed) makes the run unusable, exit code 4
	maxErrorRate float64
}

func (o *outputFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "report format: text, json, csv, markdown or html (one self-contained page with charts)")
	f.StringVar(&o.convention, "convention", "tpsbench", "report TPOT and ITL as another tool defines them: tpsbench, vllm, guidellm or genai-perf")
	f.StringVar(&o.percentiles, "percentiles", "", "percentiles to report besides p50, p90, p95, p99 and p99.9, e.g. 75,99.99 (vLLM's --metric-percentiles): in JSON every distribution's percentiles, in CSV and Markdown a column each, in text in place of p50, p90 and p99")
	f.Float64Var(&o.costPerHour, "cost-per-hour", 0, "the machine's price in dollars an hour: each step's dollars a million output and input tokens, at its rates")
	f.DurationVar(&o.slice, "slice-duration", 0, "also report each step slice by slice, of this length (AIPerf's --slice-duration): requests sent, TPS, TTFT and ITL of each slice, in JSON (slices) and text")
	f.BoolVar(&o.traceTiming, "show-trace-timing", false, "also print each step's HTTP phases in a table apart (AIPerf's --show-trace-timing; k6's http_req_ names: blocked, DNS, connecting, TLS handshaking, sending, waiting, receiving) and how many requests reused a connection; JSON and HTML reports carry them always")
	f.StringVar(&o.out, "out", "", "write the report to this file instead of stdout")
	f.BoolVar(&o.force, "force", false, "replace output files that exist (otherwise refused)")
	f.StringSliceVar(&o.targetUse, "target-use", nil, "check the target of a use case (docs/design.md): chat (30 TPS per request), code (50 TPS per request), batch (200 TPS system)")
	f.StringVar(&o.slo, "slo", "", "custom targets, e.g. ttft=500ms,tpot=40ms,e2e=10s,request_tps=30,decode_tps=40,system_tps=200 (a latency without a unit is in milliseconds)")
	f.Float64Var(&o.sloShare, "slo-share", metrics.DefaultShare, "share of requests that must meet each per-request target")
	f.Float64Var(&o.maxErrorRate, "max-error-rate", 1, "exit with code 4 when a step's share of failed requests is over this, e.g. 0.05 (a step whose every request failed always does); below 1, a run also stops a step early once more than this share of its last 30 finished requests failed")
}

// targets parses the target flags.
func (o *outputFlags) targets() (metrics.Targets, error) {
	if err := report.CheckFormat(o.format); err != nil {
		return metrics.Targets{}, usageError{fmt.Errorf("--format: %w", err)}
	}
	if err := metrics.CheckConvention(o.convention); err != nil {
		return metrics.Targets{}, usageError{fmt.Errorf("--convention: %w", err)}
	}
	if !(o.costPerHour >= 0) || math.IsInf(o.costPerHour, 1) {
		return metrics.Targets{}, usagef("--cost-per-hour %v: want dollars an hour, 0 or more", o.costPerHour)
	}
	var err error
	if o.percentileList, err = metrics.ParsePercentiles(o.percentiles); err != nil {
		return metrics.Targets{}, usageError{fmt.Errorf("--percentiles: %w", err)}
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
	// the settings a report shares with a run's plan, to its rules
	settings := tpsbench.Plan{Targets: ts, Convention: o.convention, Percentiles: o.percentileList, SliceDuration: o.slice, MaxErrorRate: o.maxErrorRate}
	if err := settings.CheckSettings(); err != nil {
		return ts, usageError{err}
	}
	return ts, nil
}

// steps returns an empty grouping of steps under the flags' convention.
func (o *outputFlags) steps(targets metrics.Targets) *metrics.Steps {
	return metrics.NewSteps(targets).WithConvention(o.convention).WithPercentiles(o.percentileList).WithSlices(o.slice)
}

// render writes the report where asked, then turns too many failed
// requests into exit code 4 and unmet targets into 3.
func (o *outputFlags) render(stdout io.Writer, r *report.Report) error {
	for i := range r.Steps {
		r.Steps[i].Cost = metrics.CostAt(&r.Steps[i], o.costPerHour)
	}
	r.TraceTiming = o.traceTiming
	if err := o.write(stdout, r); err != nil {
		return err
	}
	if err := o.usable(r); err != nil {
		return err
	}
	if !r.Pass {
		return exitCode(exitTargetsFail)
	}
	return nil
}

// write writes the report where asked.
func (o *outputFlags) write(stdout io.Writer, r *report.Report) error {
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
	return nil
}

// unusableRun is a run whose failures leave its figures unusable: a
// script should not take them (exit code 4).
type unusableRun struct{ error }

// usable checks each step's error rate against --max-error-rate.
func (o *outputFlags) usable(r *report.Report) error {
	for _, s := range r.Steps {
		measured := s.Requests.Completed + s.Requests.Failed
		if e := s.Stopped; e != nil && e.ByRate() {
			return unusableRun{fmt.Errorf("step %s stopped early: %s (--max-error-rate %g)", s.Label, e, o.maxErrorRate)}
		}
		if measured == 0 || (s.ErrorRate <= o.maxErrorRate && s.Requests.Completed > 0) {
			continue
		}
		why := ""
		if rs := s.Requests.Reasons; len(rs) > 0 {
			why = fmt.Sprintf("; mostly %s: %s", rs[0].Kind, rs[0].Example)
		}
		name := ""
		if len(r.Steps) > 1 {
			name = " of step " + s.Label
		}
		return unusableRun{fmt.Errorf("%d of %d requests%s failed (%.1f%%; --max-error-rate %g)%s", s.Requests.Failed, measured, name, 100*s.ErrorRate, o.maxErrorRate, why)}
	}
	return nil
}
