package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// newReferenceCmd prints the command-line reference docs/cli.md holds,
// made from the commands themselves, so that the help and the docs say
// the same (a test holds docs/cli.md to it).
func newReferenceCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:    "reference",
		Short:  "Print the command-line reference (docs/cli.md) in Markdown",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeReference(cmd.OutOrStdout(), root)
		},
	}
}

// writeReference writes every visible command: what it does, how it is
// called, its examples and its flags, as --help gives them.
func writeReference(w io.Writer, root *cobra.Command) error {
	var b strings.Builder
	b.WriteString("# Command-line reference\n\n")
	b.WriteString("<!-- written by `tpsbench reference` from the commands themselves; cmd/tpsbench's tests hold this file to it -->\n")
	b.WriteString("Every command, as `--help` shows it. Exit codes: 0 measured and every target met, 1 an error while working, 2 bad input (the command line, or a file it names to read), 3 a target missed, 4 too many requests failed (`--max-error-rate`), 130 interrupted.\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if c.Runnable() {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n\n```\n%s\n```\n", c.CommandPath(), c.Short, c.UseLine())
			if c.Example != "" {
				fmt.Fprintf(&b, "\nExamples:\n\n```\n%s\n```\n", c.Example)
			}
			if flags := c.NonInheritedFlags().FlagUsagesWrapped(100); strings.TrimSpace(flags) != "" {
				fmt.Fprintf(&b, "\nFlags:\n\n```\n%s```\n", flags)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	_, err := io.WriteString(w, b.String())
	return err
}
