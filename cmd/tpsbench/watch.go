package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/record"
)

// minRedraw bounds how often the dashboard may redraw.
const minRedraw = 10 * time.Millisecond

func newWatchCmd() *cobra.Command {
	var every time.Duration
	var once bool
	cmd := &cobra.Command{
		Use:   "watch RECORDS.jsonl",
		Short: "Follow a growing records file (a run's --records, a proxy's) in a full-screen live view",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if every < minRedraw {
				return usagef("--every %v: want at least %v", every, minRedraw)
			}
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
			// A line that is not a record is skipped and shown as such,
			// as report skips and counts it.
			rd := record.NewReader(rewinding{f}, args[0])
			rd.SkipBad(d.skip)
			if once {
				rd.Follow(ctx, func() bool { return false })
			} else {
				rd.Follow(ctx, func() bool {
					select { // the file may grow: look again shortly
					case <-ctx.Done():
						return false
					case <-time.After(200 * time.Millisecond):
						return true
					}
				})
			}
			var rec record.Record
			for err = rd.Next(&rec); err == nil; err = rd.Next(&rec) {
				d.record(&rec)
			}
			if errors.Is(err, record.ErrPartialLine) {
				d.skip(err)
			}
			if once {
				d.draw()
			} else {
				d.stop()
			}
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, record.ErrPartialLine) && ctx.Err() == nil {
				return err
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&every, "every", 500*time.Millisecond, "redraw interval")
	cmd.Flags().BoolVar(&once, "once", false, "draw what the file holds now and exit")
	return cmd
}
