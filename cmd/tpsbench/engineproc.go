package main

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/spf13/pflag"

	"github.com/tpsbench/tpsbench/engine"
)

// The CLI runs the embedded engine in a process of its own
// (engine.StartProcess says why), as `tpsbench serve` on a loopback port.

// engineChildEnv marks a process started as the engine, so that a test
// binary (whose main is the test runner) runs the command instead.
const engineChildEnv = "TPSBENCH_ENGINE_PROCESS"

// serveArgs are `tpsbench serve`'s flags for the engine e describes: each
// engine flag whose value is not its default, or that was given (a
// preset's scheduler settings hold but for the flags given explicitly).
func (e *engineFlags) serveArgs() []string {
	// flags bound to a copy, which then takes e's values: the flag values
	// point at its fields
	fs, bound := engineFlagSet("")
	*bound = *e
	var args []string
	fs.VisitAll(func(f *pflag.Flag) {
		if v := f.Value.String(); v != f.DefValue || e.changed != nil && e.changed(f.Name) {
			args = append(args, "--"+f.Name+"="+v)
		}
	})
	return args
}

// startEngineProcess starts `tpsbench serve` with args on a free loopback
// port (this program, re-executed) and waits until it listens.
func startEngineProcess(args []string) (*engine.Process, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting the engine: finding this program: %w", err)
	}
	cmd := exec.Command(exe, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	// no bearer token: the run's key is for --url servers
	cmd.Env = append(os.Environ(), engineChildEnv+"=1", "TPSBENCH_API_KEY=")
	return engine.StartProcess(cmd)
}

// engineFlagSet is the engine's flags alone, named with prefix and bound
// to a fresh engineFlags.
func engineFlagSet(prefix string) (*pflag.FlagSet, *engineFlags) {
	e := &engineFlags{}
	fs := pflag.NewFlagSet("engine", pflag.ContinueOnError)
	e.define(fs, prefix)
	return fs, e
}
