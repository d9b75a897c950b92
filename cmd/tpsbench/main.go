// Command tpsbench measures how fast LLM servers generate text.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/internal/outfile"
	"github.com/tpsbench/tpsbench/internal/termsafe"
)

// Exit codes.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitTargetsFail = 3
	exitUnusable    = 4   // too many requests failed (--max-error-rate)
	exitInterrupted = 130 // SIGINT
	exitTerminated  = 143 // SIGTERM
)

// usageError marks a mistake in the command line (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// inputError marks a file the command line names as input (prompts, a
// dataset, a trace, a scenario, records to report) that cannot be read
// or used: exit code 2, as a bad flag is, since nothing was measured;
// its message names the file, so no help is pointed at.
type inputError struct{ err error }

func (i inputError) Error() string { return i.err.Error() }
func (i inputError) Unwrap() error { return i.err }

// exitCode carries a non-error exit status out of a command (targets
// missed, run interrupted) after its report is printed.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "tpsbench",
		Short:         "Measure how fast LLM servers generate text: TPS, TTFT, TPOT, ITL",
		Version:       buildLine(tpsbench.ThisBuild()),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError)
	var profile string
	root.PersistentFlags().StringVar(&profile, "cpuprofile", "", "write a CPU profile of tpsbench itself to this new file")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	var stopProfile func()
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if profile == "" {
			return nil
		}
		f, err := outfile.CreateStream(profile, false)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
		return nil
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		if stopProfile != nil {
			stopProfile()
		}
	}
	root.AddCommand(newRunCmd(), newReportCmd(), newServeCmd(), newModelCmd(), newEstimateCmd(), newCompareCmd(), newMergeCmd(), newProxyCmd(), newWatchCmd(), newSweepCmd())
	root.AddCommand(newReferenceCmd(root), newVersionCmd(), newTraceCmd(), newChatCmd(), newPlotCmd())
	return root
}

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs the command line and returns the exit code.
func execute(args []string, stdout, stderr io.Writer) int {
	return executeIn(args, os.Stdin, stdout, stderr)
}

// executeIn runs the command line with stdin as its input (what `chat`
// reads).
func executeIn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	failed, err := root.ExecuteC()
	var code exitCode
	var usage usageError
	var input inputError
	var unusable unusableRun
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &unusable):
		fmt.Fprintf(termsafe.Writer(stderr), "tpsbench: %v\n", err)
		return exitUnusable
	case errors.As(err, &input):
		fmt.Fprintf(termsafe.Writer(stderr), "tpsbench: %v\n", err)
		return exitUsage
	case errors.As(err, &usage) || isCobraUsage(err):
		fmt.Fprintf(termsafe.Writer(stderr), "tpsbench: %v\nRun '%s' for usage.\n", err, usageHint(failed))
		return exitUsage
	default:
		// a server's error body may be in the message
		fmt.Fprintf(termsafe.Writer(stderr), "tpsbench: %v\n", err)
		return exitError
	}
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong number of arguments).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "unknown flag", "unknown shorthand"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
