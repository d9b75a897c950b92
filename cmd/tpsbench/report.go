package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/report"
)

func newReportCmd() *cobra.Command {
	var o outputFlags
	cmd := &cobra.Command{
		Use:   "report FILE...",
		Short: "Report the figures of a records file (JSONL) written by tpsbench run --records",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := o.targets()
			if err != nil {
				return err
			}
			if err := checkOutputs([]namedPath{{"--out", o.out}}, inputFiles(args), o.force); err != nil {
				return err
			}
			steps := o.steps(targets)
			for _, path := range args {
				if err := readRecords(path, cmd.ErrOrStderr(), steps.Add); err != nil {
					return err
				}
			}
			return o.render(cmd.OutOrStdout(), report.New(tpsbench.Version, steps.Summaries()))
		},
	}
	o.register(cmd)
	return cmd
}

// readRecords streams a records file into fn. A partial last line, what a
// killed run leaves, is skipped with a warning.
func readRecords(path string, warn io.Writer, fn func(*record.Record)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opening records: %w", err)
	}
	defer f.Close()
	rd := record.NewReader(f, path)
	var rec record.Record
	for {
		err := rd.Next(&rec)
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, record.ErrPartialLine):
			fmt.Fprintf(warn, "tpsbench: warning: %v\n", err)
			return nil
		case err != nil:
			return err
		}
		fn(&rec)
	}
}
