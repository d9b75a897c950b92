package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/internal/outfile"
	"github.com/tpsbench/tpsbench/record"
)

func newMergeCmd() *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "merge SHARD.jsonl... -o RUN.jsonl",
		Short: "Combine the records of shards (tpsbench run --shard I/N) into one run's records file",
		Long: `Combine the records of shards into one records file whose report is exact:
throughput over the union of the shards' windows (records carry wall-clock
time), percentiles from every record. 'tpsbench report' of the merged file
gives the same figures as 'tpsbench report' of the shard files together.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("-o FILE is required")
			}
			if err := checkOutputs([]namedPath{{"-o", out}}, inputFiles(args), force); err != nil {
				return err
			}
			f, err := outfile.Create(out, force)
			if err != nil {
				return err
			}
			defer f.Abort()
			w := record.NewWriter(f)
			// each record keeps its shard's run id: a report adds up the
			// loads of the runs a step's records came from, so that two
			// shards of concurrency 4 are a load of 8
			n := 0
			for _, path := range args {
				var werr error
				err := readRecordsAndHeaders(path, cmd.ErrOrStderr(), func(r *record.Record) {
					if werr != nil {
						return
					}
					werr = w.Write(r)
					n++
				}, func(h record.Header) {
					if werr == nil {
						werr = w.WriteHeader(h) // each shard's run says what it was
					}
				})
				if err == nil {
					err = werr
				}
				if err != nil {
					return err
				}
			}
			if err := w.Flush(); err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
			if err := f.Commit(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "merged %d records from %d files into %s\n", n, len(args), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "merged records file to write")
	cmd.Flags().BoolVar(&force, "force", false, "replace the merged file if it exists (otherwise refused)")
	return cmd
}
