package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/record"
)

func newWatchCmd() *cobra.Command {
	var every time.Duration
	var once bool
	cmd := &cobra.Command{
		Use:   "watch RECORDS.jsonl",
		Short: "Follow a growing records file (a run's --records, a proxy's) in a full-screen live view",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return fmt.Errorf("opening records: %w", err)
			}
			defer f.Close()
			d := newDashboard(cmd.OutOrStdout(), args[0])
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if !once {
				d.start(every)
			}
			br := bufio.NewReaderSize(f, 1<<20)
			var partial []byte
			for {
				line, err := br.ReadBytes('\n')
				partial = append(partial, line...)
				if err == nil {
					var r record.Record
					if json.Unmarshal(bytes.TrimSpace(partial), &r) == nil && r.V >= 1 && r.V <= record.SchemaVersion {
						d.record(&r)
					}
					partial = partial[:0]
					continue
				}
				if err != io.EOF {
					return fmt.Errorf("reading %s: %w", args[0], err)
				}
				if once {
					d.draw()
					return nil
				}
				select { // the file may grow: look again shortly
				case <-ctx.Done():
					d.stop()
					return nil
				case <-time.After(200 * time.Millisecond):
				}
			}
		},
	}
	cmd.Flags().DurationVar(&every, "every", 500*time.Millisecond, "redraw interval")
	cmd.Flags().BoolVar(&once, "once", false, "draw what the file holds now and exit")
	return cmd
}
