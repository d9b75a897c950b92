package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/tpsbench/tpsbench/engine"
)

// The CLI runs the embedded engine in a process of its own
// (engine.StartProcess says why), as `tpsbench serve` on a loopback port.

// engineChildEnv marks a process started as the engine, so that a test
// binary (whose main is the test runner) runs the command instead.
const engineChildEnv = "TPSBENCH_ENGINE_PROCESS"

// serveArgs are `tpsbench serve`'s flags for the engine ef describes.
func (e *engineFlags) serveArgs() []string {
	args := []string{"--model", e.model, "--threads", strconv.Itoa(e.threads), "--seed", strconv.FormatUint(e.seed, 10),
		"--enable-prefix-caching=" + strconv.FormatBool(e.prefix), "--kv-cache-mb", strconv.Itoa(e.kvCacheMB), "--kv-cache-dtype", e.kvDtype}
	if e.format != "" {
		args = append(args, "--dtype", e.format)
	}
	if e.reasoning > 0 {
		args = append(args, "--reasoning", strconv.Itoa(e.reasoning))
	}
	if e.parser != "" {
		args = append(args, "--reasoning-parser", e.parser)
	}
	if e.preset != "" {
		args = append(args, "--preset", e.preset)
	}
	// a preset's scheduler settings hold but for the flags given explicitly
	sched := []struct {
		name string
		args []string
	}{
		{"max-num-seqs", []string{"--max-num-seqs", strconv.Itoa(e.maxSeqs)}},
		{"enable-chunked-prefill", []string{"--enable-chunked-prefill=" + strconv.FormatBool(e.chunked)}},
		{"max-prefill-tokens", []string{"--max-prefill-tokens", strconv.Itoa(e.maxPrefill)}},
	}
	for _, f := range sched {
		if e.preset == "" || e.changed(f.name) {
			args = append(args, f.args...)
		}
	}
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
