package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/outfile"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/report"
	"github.com/tpsbench/tpsbench/servergrid"
)

// sweepFlags are the sweep command's own flags; the run's follow "--".
type sweepFlags struct {
	serveCmd, grid, gridFile, dir, url, api, format, rankBy, out string
	force                                                        bool
	zip, resume, dryRun                                          bool
	readyTimeout, stopGrace                                      time.Duration
	search                                                       bool // measure the points a search chooses, not every one
	searchRuns                                                   int
	searchTime                                                   time.Duration
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep --serve-cmd CMD --grid 'KEY=V1,V2 ...' --dir DIR -- RUN-FLAGS",
		Short: "Measure a server under each configuration of a grid: start it, wait until it answers, run the benchmark, stop it; the Pareto front and the best point under the targets",
		Example: `  tpsbench sweep --serve-cmd 'tpsbench serve --model 15m --max-num-seqs {seqs} --addr 127.0.0.1:{port}' \
    --grid 'seqs=1,4,16' --dir sweep-out -- --concurrency 16 --requests 64 --max-tokens 64 --slo tpot=50ms`,
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.serveCmd, "serve-cmd", "", "the server's command (through /bin/sh), with {KEY} for the grid's values and {port} for a free loopback port the sweep picks")
	fl.StringVar(&f.grid, "grid", "", "the server parameters to try: 'KEY=V1,V2 OTHER=A,B', every combination (or, with --zip, the i-th values together)")
	fl.StringVar(&f.gridFile, "grid-file", "", "the grid from a YAML or JSON file: KEY: [V1, V2] for each key, or a list of points, {KEY: V, ...} each (vLLM's --serve-params file), taken as listed")
	fl.BoolVar(&f.zip, "zip", false, "take the grid's keys' values together, the i-th of each, instead of every combination")
	fl.StringVar(&f.dir, "dir", "", "a folder a point under this one: the server's log, the run's records and report")
	fl.StringVar(&f.url, "url", "http://127.0.0.1:{port}", "the server's URL, with the same placeholders")
	fl.StringVar(&f.api, "api", client.APIAuto, "the API to wait for (its model list) before measuring; the run's own --api goes after --")
	fl.BoolVar(&f.resume, "resume", false, "keep the points already measured in --dir, measure the others")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print each point's server command, start nothing")
	fl.DurationVar(&f.readyTimeout, "ready-timeout", 10*time.Minute, "how long a started server may take to answer")
	fl.DurationVar(&f.stopGrace, "stop-grace", 10*time.Second, "after SIGTERM, how long before a server is killed")
	fl.StringVar(&f.out, "out", "", "write the table, JSON or page to this file (whole or not at all) instead of stdout")
	fl.BoolVar(&f.force, "force", false, "replace what exists: --out's file, and the points an earlier sweep measured in --dir (without it or --resume, such a --dir is refused)")
	fl.StringVar(&f.rankBy, "rank-by", "", "order the points by system_tps (the highest first) or cost (the fewest dollars a million output tokens first; give --cost-per-hour after --); default: the grid's order")
	fl.BoolVar(&f.search, "search", false, "search the highest values meeting every target (the run's --slo) instead of measuring every point: each key's values in the order given, bisected from the first (several keys: each in turn, the others held at their values found); AIPerf's adaptive search over server flags")
	fl.IntVar(&f.searchRuns, "search-max-iterations", 0, "with --search: measure at most this many points (0: no bound)")
	fl.DurationVar(&f.searchTime, "search-max-time", 0, "with --search: begin no point once this long has passed (0: no bound)")
	fl.StringVar(&f.format, "format", "text", "text (a table of the points), json (every point's outcome) or html (a page: the points' table, the Pareto front drawn, their distributions)")
	return cmd
}

func (f *sweepFlags) run(cmd *cobra.Command, runArgs []string) error {
	switch {
	case f.serveCmd == "" || (f.grid == "") == (f.gridFile == ""):
		return usagef("give --serve-cmd, and --grid or --grid-file")
	case f.dir == "" && !f.dryRun:
		return usagef("give --dir, the folder the points' outcomes go in")
	case f.format != "text" && f.format != "json" && f.format != "html":
		return usagef("--format %q: want text, json or html", f.format)
	case f.rankBy != "" && f.rankBy != servergrid.RankSystemTPS && f.rankBy != servergrid.RankCost:
		return usagef("--rank-by %q: want system_tps or cost", f.rankBy)
	case f.out != "" && outfile.Check(f.out, f.force) != nil:
		return usagef("--out: %v", outfile.Check(f.out, f.force)) // said before the sweep, not after it
	}
	for _, a := range runArgs {
		if a == "--url" || strings.HasPrefix(a, "--url=") || a == "--records" || a == "--out" || a == "--format" {
			return usagef("the run's %s is the sweep's to set: give the run's other flags after --", a)
		}
	}
	grid, err := f.readGrid()
	if err != nil {
		return err
	}
	o := servergrid.Options{ServeCmd: f.serveCmd, URL: f.url, API: f.api, Grid: grid, Dir: f.dir, ReadyTimeout: f.readyTimeout,
		StopGrace: f.stopGrace, Resume: f.resume, Force: f.force, DryRun: f.dryRun, Log: cmd.ErrOrStderr()}
	if err := o.CheckDir(); err != nil {
		return usageError{err} // as an output file that exists
	}
	// Ctrl-C ends the sweep after stopping the point's server (a server
	// left running would hold its port and its memory); the points
	// measured are kept for --resume
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var results []servergrid.Result
	var found *servergrid.SearchOutcome
	switch {
	case f.search && f.dryRun:
		return usagef("--search measures the points it chooses: it has no --dry-run")
	case f.search:
		var out servergrid.SearchOutcome
		results, out, err = servergrid.Search(ctx, o, servergrid.SearchBudget{Runs: f.searchRuns, Time: f.searchTime}, measureWithRun(runArgs))
		found = &out
	case f.searchRuns != 0 || f.searchTime != 0:
		return usagef("--search-max-iterations and --search-max-time bound a --search")
	default:
		results, err = servergrid.Run(ctx, o, measureWithRun(runArgs))
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "tpsbench: sweep interrupted after %d points; --resume carries on\n", len(results))
			return exitCode(exitInterrupted)
		}
		return err
	}
	if f.dryRun {
		return nil
	}
	if err := servergrid.Rank(results, f.rankBy); err != nil {
		return usagef("--rank-by: %v", err)
	}
	if err := f.write(cmd.OutOrStdout(), results, found); err != nil {
		return err
	}
	if found != nil && !found.Found {
		return exitCode(exitTargetsFail)
	}
	for _, r := range results {
		if r.Err == "" {
			return nil
		}
	}
	return fmt.Errorf("no point was measured")
}

// measureWithRun measures a point with tpsbench run, in process: the
// flags after "--" (their placeholders filled in), against the point's
// server, its records and JSON report in the point's folder.
func measureWithRun(runArgs []string) servergrid.Measure {
	return func(ctx context.Context, p servergrid.Point, url, dir string) (servergrid.Outcome, error) {
		args := []string{"run", "--url", url, "--records", filepath.Join(dir, "records.jsonl"),
			"--format", "json", "--out", filepath.Join(dir, "report.json"), "--force", "-q"}
		for _, a := range runArgs {
			e, err := p.Expand(a, 0)
			if err != nil {
				return servergrid.Outcome{}, err
			}
			args = append(args, e)
		}
		var stderr bytes.Buffer
		code := execute(args, io.Discard, &stderr)
		data, err := os.ReadFile(filepath.Join(dir, "report.json"))
		if err != nil {
			return servergrid.Outcome{}, fmt.Errorf("the run gave no report (exit %d): %s", code, strings.TrimSpace(stderr.String()))
		}
		var rep report.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return servergrid.Outcome{}, fmt.Errorf("reading the run's report: %w", err)
		}
		return servergrid.Outcome{Steps: rep.Steps, Pass: rep.Pass, Repeats: rep.Repeats, BestConcurrency: rep.BestConcurrency}, nil
	}
}

// writeSweep writes the points' table (text), every outcome (json), or a
// page of them (html).
func writeSweep(w io.Writer, format string, results []servergrid.Result, search *servergrid.SearchOutcome) error {
	best, bestErr := servergrid.Best(results)
	if search != nil { // the search's answer, not the fastest point it passed on its way
		best, bestErr = search.Best, nil
		if !search.Found {
			bestErr = servergrid.ErrNoPoint
		}
	}
	if format == "html" {
		return sweepPage(w, results, best, bestErr)
	}
	if format == "json" {
		out := struct {
			Points []servergrid.Result `json:"points"`
			Best   string              `json:"best,omitempty"`
			Search string              `json:"search,omitempty"` // how a --search ended
		}{Points: results, Best: best.Dir}
		if search != nil {
			out.Search = search.Why
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	// columns of goodput, when per-request targets were given, and of
	// dollars a million output tokens, when --cost-per-hour was
	good, priced, searched := false, false, false
	for _, r := range results {
		searched = searched || r.BestConcurrency > 0
		good = good || (len(r.Steps) > 0 && r.Steps[0].Goodput != nil)
		priced = priced || (len(r.Steps) > 0 && r.Steps[0].Cost != nil)
	}
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "point\tsystem TPS\trequest TPS\tTTFT p50\tTTFT p99\tTPOT p50\ttargets\tPareto\t")
	if good {
		fmt.Fprintf(tw, "goodput req/s\t")
	}
	if searched {
		fmt.Fprintf(tw, "max concurrency under targets\t")
	}
	if priced {
		fmt.Fprintf(tw, "$/M output\t")
	}
	fmt.Fprintf(tw, "\n")
	for _, r := range results {
		if r.Err != "" {
			fmt.Fprintf(tw, "%s\tfailed: %s\t\t\t\t\t\t\t\n", r.Point, firstLine(r.Err))
			continue
		}
		s := r.Steps[0]
		system := fmt.Sprintf("%.2f", s.SystemTPS)
		if len(r.Repeats) > 0 { // repeated: the mean and its interval
			iv := r.Repeats[0].Figures["system_tps"]
			system = fmt.Sprintf("%.2f [%.2f, %.2f]", iv.Mean, iv.Low, iv.High)
		}
		mark := ""
		if r.Pareto {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t", r.Point, system, s.RequestTPS.Mean, ms(s.TTFT.P50), ms(s.TTFT.P99),
			ms(s.TPOT.P50), map[bool]string{true: "pass", false: "FAIL"}[r.Pass], mark)
		if good {
			cell := "-"
			if g := s.Goodput; g != nil {
				cell = fmt.Sprintf("%.3f", g.RequestThroughput)
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		if searched {
			cell := "none"
			if r.BestConcurrency > 0 {
				cell = fmt.Sprint(r.BestConcurrency)
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		if priced && s.Cost != nil {
			fmt.Fprintf(tw, "%.4g\t", s.Cost.PerMillionOutput)
		}
		fmt.Fprintf(tw, "\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if search != nil {
		fmt.Fprintf(w, "\nSearched %d of the grid's points: %s.", len(results), search.Why)
	}
	if bestErr != nil {
		_, err := fmt.Fprintf(w, "\nNo point met every target.\n")
		return err
	}
	what := "Best point meeting every target"
	if search != nil {
		what = "Highest values meeting every target"
	}
	_, err := fmt.Fprintf(w, "\n%s: %s; * marks the Pareto front of system TPS against per-request TPS (means across runs when repeated).\n",
		what, best.Point)
	return err
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// ms prints milliseconds as the report does.
func ms(v float64) string { return fmt.Sprintf("%.2f ms", v) }

// readGrid reads the grid from --grid or --grid-file.
func (f *sweepFlags) readGrid() (servergrid.Grid, error) {
	if f.gridFile != "" {
		g, err := servergrid.LoadGrid(f.gridFile, f.zip)
		if err != nil {
			return servergrid.Grid{}, usagef("--grid-file: %v", err)
		}
		return g, nil
	}
	g, err := servergrid.ParseGrid(f.grid, f.zip)
	if err != nil {
		return servergrid.Grid{}, usagef("--grid: %v", err)
	}
	return g, nil
}

// sweepPage writes the sweep as an HTML report whose steps are the
// measured points (each its first step, labelled by its parameters), so
// that the page draws them against each other and their Pareto front.
func sweepPage(w io.Writer, results []servergrid.Result, best servergrid.Result, bestErr error) error {
	var steps []metrics.Summary
	for _, r := range results {
		if r.Err == "" && len(r.Steps) > 0 {
			s := r.Steps[0]
			s.Label = r.Point.String()
			steps = append(steps, s)
		}
	}
	rep := report.New(tpsbench.Version, steps)
	rep.Note = "No point met every target."
	if bestErr == nil {
		rep.Note = "Best point meeting every target: " + best.Point.String()
	}
	return report.Render(w, "html", rep)
}

// write writes the sweep's outcome to stdout, or whole to --out.
func (f *sweepFlags) write(stdout io.Writer, results []servergrid.Result, search *servergrid.SearchOutcome) error {
	if f.out == "" {
		return writeSweep(stdout, f.format, results, search)
	}
	file, err := outfile.Create(f.out, f.force)
	if err != nil {
		return fmt.Errorf("creating %s: %w", f.out, err)
	}
	defer file.Abort()
	if err := writeSweep(file, f.format, results, search); err != nil {
		return fmt.Errorf("writing %s: %w", f.out, err)
	}
	return file.Commit()
}
