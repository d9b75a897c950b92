package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// An engine in a process of its own: a measuring process that also ran
// the engine's threads kept every Go scheduler slot busy, so the runtime
// polled the network only every 10 ms and the client read tokens in
// bursts (bench/colocation.sh: 74-79% of chunks batched, arrival gaps p99
// 16 ms, against 5-11% and 4 ms from a process of its own). A real server
// runs apart from its client; so can this one. The process is any program
// that serves an engine and Announces it (`tpsbench serve` does);
// StartProcess waits for that line.

// Announce says on w that e serves at url, in the line StartProcess waits
// for.
func Announce(w io.Writer, e *Engine, url string) {
	threads := fmt.Sprintf("%d threads", e.Model.Threads())
	if e.Model.Threads() == 1 {
		threads = "1 thread"
	}
	weights := ""
	if e.Synthetic {
		weights = syntheticWeights + ": its speed is a real model's of this shape, its text is noise; "
	}
	fmt.Fprintf(w, "serving %s (%s%d parameters, %.1f MiB a token read, %s, %s KV cache) at %s\n",
		e.Name, weights, e.Model.Params(), float64(e.Model.BytesPerToken())/(1<<20), threads, e.Model.KVType(), url)
}

// syntheticWeights begins the announcement of dummy weights.
const syntheticWeights = "synthetic weights"

// Process is an engine serving in a process of its own.
type Process struct {
	URL  string // its base URL
	Name string // the model it serves
	Info string // its size and threads, as announced
	// Synthetic says it announced dummy weights: its text is noise.
	Synthetic bool
	cmd       *exec.Cmd
	done      chan struct{}
}

// StartProcess starts cmd, a program that serves an engine and Announces
// it on stderr, and waits until it listens. What it says before is the
// error if it fails to start; after, it says nothing but on failures that
// its responses carry, so the rest is drained and dropped (written to the
// caller's stderr it would race the caller's own writers). Stop ends it.
func StartProcess(cmd *exec.Cmd) (*Process, error) {
	setParentDeathSignal(cmd)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("starting the engine: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the engine: %w", err)
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	lines := bufio.NewScanner(pipe)
	var said []string
	for lines.Scan() {
		line := lines.Text()
		if rest, ok := strings.CutPrefix(line, "serving "); ok {
			if i := strings.LastIndex(rest, " at "); i > 0 {
				p.URL = rest[i+len(" at "):]
				p.Name, p.Info, _ = strings.Cut(rest[:i], " ")
				p.Synthetic = strings.HasPrefix(p.Info, "("+syntheticWeights)
				break
			}
		}
		said = append(said, line)
	}
	if p.URL == "" {
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
		close(p.done)
	}()
	return p, nil
}

// Stop asks the engine to end (SIGTERM: running requests end with an
// error event) and waits for it, killing it after 10 s.
func (p *Process) Stop() {
	if !terminate(p.cmd.Process) {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Exited is closed once the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.done }
