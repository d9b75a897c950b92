package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/internal/outfile"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/plot"
	"github.com/tpsbench/tpsbench/report"
)

func newPlotCmd() *cobra.Command {
	var dir string
	var force bool
	cmd := &cobra.Command{
		Use:   "plot FILE... [--dir DIR]",
		Short: "Draw a run's charts as PNG images from its records file, several files compared (AIPerf's plot)",
		Long: "Draws, from records files alone, the charts AIPerf's plot draws: TTFT and ITL (p50, p99) against the load, system TPS against per-request TPS with " +
			"the Pareto front, each step's rolling TPS over its time, and each session's turns as lanes. Each file is a run; several are compared in each chart. " +
			"A chart with nothing to show (one load level, no sessions) is left out.",
		Example: "  tpsbench plot records.jsonl --dir plots\n  tpsbench plot before.jsonl after.jsonl --dir compared",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var runs []report.PlotRun
			for _, path := range args {
				steps := metrics.NewSteps(metrics.Targets{})
				if err := readRecords(path, cmd.ErrOrStderr(), steps.Add); err != nil {
					return err
				}
				runs = append(runs, report.PlotRun{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Steps: steps.Summaries()})
			}
			return writePlots(dir, force, runs, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "plots", "the folder the PNG files go in (made when missing)")
	cmd.Flags().BoolVar(&force, "force", false, "replace PNG files of the same names that are there (otherwise refused)")
	return cmd
}

// writePlots draws the runs' charts into dir, a PNG file each, and says
// which it wrote.
func writePlots(dir string, force bool, runs []report.PlotRun, w io.Writer) error {
	plots := report.Plots(runs)
	if len(plots) == 0 {
		return inputError{errors.New("nothing to plot: no step completed a request")}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("making the plots' folder: %w", err)
	}
	for _, p := range plots {
		path := filepath.Join(dir, p.File)
		f, err := outfile.Create(path, force)
		if err != nil {
			return fmt.Errorf("creating %s: %w", path, err)
		}
		if _, err := plot.Render(f, p.Chart); err != nil {
			f.Abort()
			return fmt.Errorf("drawing %s: %w", path, err)
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		fmt.Fprintf(w, "wrote %s (%s)\n", path, p.Chart.Title)
	}
	return nil
}
