package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/load"
)

// TestProgressClientCPU: the plain progress line carries the client's CPU
// share from its second line on, and none when the server runs in the
// process.
func TestProgressClientCPU(t *testing.T) {
	steps := []tpsbench.Step{{Label: "s", Profile: load.Profile{Requests: 10}}}
	for _, clientCPU := range []bool{true, false} {
		var buf bytes.Buffer
		p := newProgress(&buf, steps, clientCPU)
		if clientCPU {
			used := time.Duration(0)
			p.cpu = func() (time.Duration, bool) { used += time.Second; return used, true }
		}
		p.step(0, &steps[0])
		p.print()
		time.Sleep(time.Millisecond) // the share needs wall time between lines
		p.print()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 2 || strings.Contains(lines[0], "client CPU") || strings.Contains(lines[1], "client CPU") != clientCPU {
			t.Errorf("client CPU %v: lines %q", clientCPU, lines)
		}
	}
}
