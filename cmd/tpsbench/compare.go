package main

import (
	"fmt"
	"path/filepath"
	"regexp"
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
			var repeats [][]metrics.Repeat // each file's steps across its runs (--repeat)
			for _, path := range args {
				ts := targets
				if len(ts.List) == 0 {
					ts = leadingHeaders([]string{path}).targets(cmd.ErrOrStderr()) // each run's own
				}
				steps := o.steps(ts)
				if err := readRecords(path, cmd.ErrOrStderr(), steps.Add); err != nil {
					return err
				}
				name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
				sums := steps.Summaries()
				if len(sums) == 0 {
					return fmt.Errorf("%s holds no records", path)
				}
				repeats = append(repeats, acrossRuns(name, sums))
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
			for _, r := range repeats {
				rep.Repeats = append(rep.Repeats, r...)
			}
			rep.Note = repeatVerdicts(repeats)
			return o.render(cmd.OutOrStdout(), rep)
		},
	}
	o.register(cmd)
	return cmd
}

// runSuffix is the label a repeated run's steps carry (--repeat).
var runSuffix = regexp.MustCompile(` \(run [0-9]+\)$`)

// acrossRuns is a file's steps across its repeated runs, labelled with
// the file's name; none when the file holds one run.
func acrossRuns(name string, sums []metrics.Summary) []metrics.Repeat {
	byLabel := map[string][]metrics.Summary{}
	var order []string
	for _, s := range sums {
		base := runSuffix.ReplaceAllString(s.Label, "")
		if base == s.Label {
			continue // not a repeated run's
		}
		if _, seen := byLabel[base]; !seen {
			order = append(order, base)
		}
		byLabel[base] = append(byLabel[base], s)
	}
	var out []metrics.Repeat
	for _, base := range order {
		if len(byLabel[base]) > 1 {
			out = append(out, metrics.AcrossRuns(strings.TrimSpace(name+" "+base), byLabel[base]))
		}
	}
	return out
}

// repeatVerdicts says, for each step repeated in the first file and in
// another, which figures differ beyond their 95% intervals and which are
// within them: a difference read from one run may be noise.
func repeatVerdicts(files [][]metrics.Repeat) string {
	if len(files) < 2 || len(files[0]) == 0 {
		return ""
	}
	var lines []string
	for _, other := range files[1:] {
		for i, a := range files[0] {
			if i >= len(other) {
				break
			}
			b := other[i]
			var differ, same []string
			for _, name := range metrics.RepeatFigureNames() {
				ia, okA := a.Figures[name]
				ib, okB := b.Figures[name]
				switch {
				case !okA || !okB:
				case metrics.Overlap(ia, ib):
					same = append(same, name)
				default:
					differ = append(differ, fmt.Sprintf("%s %.4g against %.4g", name, ib.Mean, ia.Mean))
				}
			}
			line := fmt.Sprintf("%s against %s: ", b.Label, a.Label)
			if len(differ) > 0 {
				line += "differs beyond the 95% intervals in " + strings.Join(differ, ", ")
			} else {
				line += "no figure differs beyond the 95% intervals"
			}
			if len(same) > 0 {
				line += "; within them: " + strings.Join(same, ", ")
			}
			lines = append(lines, line+".")
		}
	}
	return strings.Join(lines, "\n")
}
