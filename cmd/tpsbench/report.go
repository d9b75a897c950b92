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
			runs := leadingHeaders(args)
			if len(targets.List) == 0 {
				targets = runs.targets(cmd.ErrOrStderr()) // the run's own, unless the flags give others
			}
			steps := o.steps(targets)
			for _, path := range args {
				if err := readRecords(path, cmd.ErrOrStderr(), steps.Add); err != nil {
					return err
				}
			}
			rep := report.New(tpsbench.Version, steps.Summaries())
			rep.Sent = runs.sent()
			return o.render(cmd.OutOrStdout(), rep)
		},
	}
	o.register(cmd)
	return cmd
}

// readRecords streams a records file into fn. A line that is not a valid
// record costs that record, not the file: it is skipped, and the count of
// them is shown with the first's reason, as is a partial last line (what
// a killed run leaves). A file with no valid record at all is an error.
func readRecords(path string, warn io.Writer, fn func(*record.Record)) error {
	return readRecordsAndHeaders(path, warn, fn, nil)
}

// readRecordsAndHeaders is readRecords, handing each run's header to
// onHeader (when set) as it is met, before the run's records.
func readRecordsAndHeaders(path string, warn io.Writer, fn func(*record.Record), onHeader func(record.Header)) error {
	f, err := os.Open(path)
	if err != nil {
		return inputError{fmt.Errorf("opening records: %w", err)}
	}
	defer f.Close()
	rd := record.NewReader(f, path)
	bad, read, headers := 0, 0, 0 // headers: those handed on
	var firstBad error
	rd.SkipBad(func(err error) {
		if bad == 0 {
			firstBad = err
		}
		bad++
	})
	defer func() {
		if bad > 0 {
			fmt.Fprintf(warn, "tpsbench: warning: %s: %d lines skipped that are not valid records (%d read); the first: %v\n", path, bad, read, firstBad)
		}
	}()
	var rec record.Record
	for {
		err := rd.Next(&rec)
		switch {
		case errors.Is(err, io.EOF):
			if read == 0 && bad > 0 {
				return inputError{fmt.Errorf("%s: no valid record; the first bad line: %w", path, firstBad)}
			}
			return nil
		case errors.Is(err, record.ErrPartialLine):
			fmt.Fprintf(warn, "tpsbench: warning: %v\n", err)
			return nil
		case err != nil:
			return inputError{err}
		}
		for ; onHeader != nil && headers < len(rd.Headers()); headers++ {
			onHeader(rd.Headers()[headers])
		}
		read++
		fn(&rec)
	}
}
