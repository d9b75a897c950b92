package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/tpsbench/tpsbench/trace"
)

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "trace", Short: "Look into a trace before replaying it (--trace)"}
	cmd.AddCommand(newTraceStatsCmd())
	return cmd
}

func newTraceStatsCmd() *cobra.Command {
	var format string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats FILE",
		Short: "A trace's requests, arrival rate and burstiness, prompt and answer lengths, and the prefix-cache reuse it implies",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return inputError{fmt.Errorf("opening trace: %w", err)}
			}
			defer f.Close()
			rd, err := trace.NewReader(f, args[0], trace.Options{Format: format})
			var bad *trace.OptionError
			if errors.As(err, &bad) {
				return usagef("--format %s: %s", bad.Value, bad.Want)
			} else if err != nil {
				return inputError{err}
			}
			a, err := trace.Analyze(rd)
			if err != nil {
				return inputError{err}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					File   string `json:"file"`
					Format string `json:"format"`
					trace.Analysis
				}{args[0], rd.Format(), a})
			}
			writeTraceStats(cmd.OutOrStdout(), args[0], rd.Format(), a)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", trace.FormatAuto, "the trace's format: "+strings.Join(trace.Formats, ", "))
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the figures as JSON")
	return cmd
}

func writeTraceStats(w io.Writer, name, format string, a trace.Analysis) {
	fmt.Fprintf(w, "Trace: %s (%s)\n", name, format)
	fmt.Fprintf(w, "Requests: %d", a.Requests)
	if a.Skipped+a.Bad+a.Late > 0 {
		fmt.Fprintf(w, " (besides: %d skipped as not replayable, %d bad, %d out of order)", a.Skipped, a.Bad, a.Late)
	}
	fmt.Fprintln(w)
	if a.FirstBad != "" {
		fmt.Fprintf(w, "First bad: %s\n", a.FirstBad)
	}
	if a.Requests == 0 {
		return
	}
	fmt.Fprintf(w, "Span: %.3f s from the first arrival to the last", a.Span.Seconds())
	if a.Rate > 0 {
		fmt.Fprintf(w, ", %.3f requests/s; gaps %.3f ms on average, coefficient of variation %.2f (1 Poisson, 0 a fixed rate)", a.Rate, float64(a.GapMean)/1e6, a.GapCV)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tokens\tmean\tmin\tp50\tp90\tp99\tmax\t")
	for _, r := range []struct {
		name string
		l    trace.Lengths
	}{{"input", a.Input}, {"output", a.Output}} {
		fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t%d\t%d\t%d\t\n", r.name, r.l.Mean, r.l.Min, r.l.P50, r.l.P90, r.l.P99, r.l.Max)
	}
	tw.Flush()
	if a.WithBlocks == 0 {
		fmt.Fprintln(w, "Prefix cache: the trace names no prompt blocks, so it implies no reuse")
		return
	}
	fmt.Fprintf(w, "Prefix cache: %.1f%% of prompt tokens (%d of %d) lead with blocks an earlier request had: what a cache keeping every block could reuse\n",
		100*a.ReusedShare, a.ReusedTokens, a.PromptTokens)
}
