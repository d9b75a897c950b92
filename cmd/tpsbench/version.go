package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
)

// buildLine says what b is in one line: its version, commit and Go.
func buildLine(b tpsbench.Build) string {
	commit := b.Commit
	if commit == "" {
		commit = "unknown (built without version control)"
	}
	return fmt.Sprintf("%s (commit %s, %s)", b.Version, commit, b.Go)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print tpsbench's version, the commit it was built from and its Go version (every records file's header holds them too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "tpsbench %s\n", buildLine(tpsbench.ThisBuild()))
			return err
		},
	}
}
