package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The CLI runs the embedded engine in a process of its own, as `tpsbench
// serve` on a loopback port. In the measuring process its threads kept
// every Go scheduler slot busy, so the runtime polled the network only
// every 10 ms and the client read tokens in bursts (bench/colocation.sh:
// 74-79% of chunks batched, arrival gaps p99 16 ms, against 5-11% and
// 4 ms from a process of its own). A real server runs apart from its
// client; so does this one.

// engineChildEnv marks a process started as the engine, so that a test
// binary (whose main is the test runner) runs the command instead.
const engineChildEnv = "TPSBENCH_ENGINE_PROCESS"

// serveArgs are `tpsbench serve`'s flags for the engine ef describes.
func (e *engineFlags) serveArgs() []string {
	args := []string{"--model", e.model, "--threads", strconv.Itoa(e.threads), "--seed", strconv.FormatUint(e.seed, 10),
		"--enable-prefix-caching=" + strconv.FormatBool(e.prefix), "--kv-cache-mb", strconv.Itoa(e.kvCacheMB)}
	if e.format != "" {
		args = append(args, "--dtype", e.format)
	}
	if e.reasoning > 0 {
		args = append(args, "--reasoning", strconv.Itoa(e.reasoning))
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

// engineProcess is a running `tpsbench serve`.
type engineProcess struct {
	url, name, info string // info: its size and threads, as serve prints them
	cmd             *exec.Cmd
	exited          chan struct{}
}

// startEngineProcess starts `tpsbench serve` with args on a free loopback
// port and waits until it listens. What it says before is the error if it
// fails to start; after, serve says nothing but on failures the run
// records from its responses, so the rest is drained and dropped (written
// to the run's stderr it would race the run's own writers).
func startEngineProcess(args []string) (*engineProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting the engine: finding this program: %w", err)
	}
	cmd := exec.Command(exe, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	// no bearer token: the run's key is for --url servers
	cmd.Env = append(os.Environ(), engineChildEnv+"=1", "TPSBENCH_API_KEY=")
	setParentDeathSignal(cmd)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("starting the engine: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the engine: %w", err)
	}
	p := &engineProcess{cmd: cmd, exited: make(chan struct{})}
	lines := bufio.NewScanner(pipe)
	var said []string
	for lines.Scan() {
		line := lines.Text()
		if rest, ok := strings.CutPrefix(line, "serving "); ok {
			if i := strings.LastIndex(rest, " at "); i > 0 {
				p.url = rest[i+len(" at "):]
				p.name, p.info, _ = strings.Cut(rest[:i], " ")
				break
			}
		}
		said = append(said, line)
	}
	if p.url == "" {
		_ = cmd.Process.Kill() // it may live on past an unreadable line
		_ = cmd.Wait()
		msg := strings.TrimPrefix(strings.TrimSpace(strings.Join(said, "\n")), "tpsbench: ")
		if msg == "" {
			msg = "it exited before listening"
		}
		return nil, errors.New("starting the engine: " + msg)
	}
	go func() {
		_, _ = io.Copy(io.Discard, pipe)
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop asks the engine to end (SIGTERM: running requests end with an
// error event) and waits for it, killing it after 10 s.
func (p *engineProcess) stop() {
	if !terminate(p.cmd.Process) {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
