package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/report"
)

func newCompareCmd() *cobra.Command {
	var o outputFlags
	cmd := &cobra.Command{
		Use:   "compare A.jsonl B.jsonl...",
		Short: "Set runs side by side (models, quantizations, engines, hardware), with ratios against the first",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := o.targets()
			if err != nil {
				return err
			}
			if err := checkOutputs([]namedPath{{"--out", o.out}}, inputFiles(args), o.force); err != nil {
				return err
			}
			var all []metrics.Summary
			for _, path := range args {
				steps := o.steps(targets)
				if err := readRecords(path, cmd.ErrOrStderr(), steps.Add); err != nil {
					return err
				}
				name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
				sums := steps.Summaries()
				if len(sums) == 0 {
					return fmt.Errorf("%s holds no records", path)
				}
				for _, s := range sums {
					if len(sums) == 1 {
						s.Label = name
					} else {
						s.Label = name + " " + s.Label
					}
					all = append(all, s)
				}
			}
			rep := report.New(tpsbench.Version, all)
			rep.Compare = true
			return o.render(cmd.OutOrStdout(), rep)
		},
	}
	o.register(cmd)
	return cmd
}
