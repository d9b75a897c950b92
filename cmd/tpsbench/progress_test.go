package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
)

// TestProgressClientCPU: the plain progress line carries the client's CPU
// share from its second line on, and none where the process's CPU time
// cannot be read.
func TestProgressClientCPU(t *testing.T) {
	steps := []tpsbench.Step{{Label: "s", Profile: load.Profile{Requests: 10}}}
	for _, clientCPU := range []bool{true, false} {
		var buf bytes.Buffer
		p := newProgress(&buf, len(steps))
		used := time.Duration(0)
		p.cpu = func() (time.Duration, bool) { used += time.Second; return used, clientCPU }
		p.StepBegan(0, &steps[0])
		p.print()
		time.Sleep(time.Millisecond) // the share needs wall time between lines
		p.print()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 2 || strings.Contains(lines[0], "client CPU") || strings.Contains(lines[1], "client CPU") != clientCPU {
			t.Errorf("client CPU %v: lines %q", clientCPU, lines)
		}
	}
}

func TestFitLine(t *testing.T) {
	for _, tc := range []struct {
		line  string
		width int
		want  string
	}{
		{"abcdef", 80, "abcdef"},
		{"abcdef", 7, "abcdef"},
		{"abcdef", 6, "abcde"},
		{"abcdef", 4, "abc"},
		{"ééééé", 4, "ééé"},
		{"abcdef", 0, "abcdef"},
		{"abcdef", 1, "abcdef"},
	} {
		if got := fitLine(tc.line, tc.width); got != tc.want {
			t.Errorf("fitLine(%q, %d) = %q, want %q", tc.line, tc.width, got, tc.want)
		}
	}
}

// TestProgressFitsTheTerminal: on a terminal the redrawn line never
// reaches the last column, so it cannot wrap.
func TestProgressFitsTheTerminal(t *testing.T) {
	steps := []tpsbench.Step{{Label: "a-long-model-name", Profile: load.Profile{Requests: 10}}}
	var buf bytes.Buffer
	p := newProgress(&buf, len(steps))
	p.terminal, p.width = true, func() int { return 40 }
	p.StepBegan(0, &steps[0])
	p.print()
	out := strings.TrimPrefix(buf.String(), "\r\033[K")
	if len(out) != 39 || !strings.HasPrefix(out, "[a-long-model-name] 0/10 requests") {
		t.Fatalf("line %q (%d bytes) on a 40-column terminal", out, len(out))
	}
}

// TestProgressCountsChunks: the line counted a request's tokens only when
// it ended (4 s into a 300-token stream it read "0 tokens"). It counts
// each chunk as it comes; the end settles the count.
func TestProgressCountsChunks(t *testing.T) {
	p := newProgress(&bytes.Buffer{}, 1)
	p.StepBegan(0, &tpsbench.Step{Label: "s"})
	r := &record.Record{}
	p.Sent(r)
	for i := 0; i < 3; i++ {
		r.Streamed++
		p.Chunk(r, 1)
	}
	if got := p.tokens.Load(); got != 3 {
		t.Fatalf("%d tokens after 3 chunks", got)
	}
	r.OutputTokens = 5 // the server's usage: two tokens more than chunks
	p.Done(r)
	failed := &record.Record{Streamed: 2, Error: &record.Error{Kind: record.KindStreamCut}}
	p.Sent(failed)
	p.Chunk(failed, 1)
	p.Chunk(failed, 1)
	p.Done(failed)
	warm := &record.Record{Warmup: true, Streamed: 1}
	p.Sent(warm)
	p.Chunk(warm, 1)
	p.Done(warm)
	if got := p.tokens.Load(); got != 5 {
		t.Errorf("%d tokens, want the completed request's 5", got)
	}
}

// TestProgressFirstLineRate: the first line of a step gives the rate
// since the step began, not "0.0 over the last 10 s" with tokens streamed.
func TestProgressFirstLineRate(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, 1)
	p.cpu = func() (time.Duration, bool) { return 0, false }
	p.StepBegan(0, &tpsbench.Step{Label: "s"})
	p.stepStart = p.stepStart.Add(-2 * time.Second) // two seconds in
	p.history[0].at = p.stepStart
	r := &record.Record{}
	p.Sent(r)
	p.Chunk(r, 400)
	p.print()
	if m := regexp.MustCompile(`([\d.]+) over the last 10 s`).FindStringSubmatch(buf.String()); m == nil || m[1] == "0.0" {
		t.Errorf("first line %q", buf.String())
	}
}

// TestLiveViewFitsNarrowTerminals: the live view's lines stay under 100
// columns (its sparkline line took 127 and wrapped at 120).
func TestLiveViewFitsNarrowTerminals(t *testing.T) {
	var buf bytes.Buffer
	d := newDashboard(&buf, "run")
	d.live = true
	now := time.Now()
	for s := 0; s < 90; s++ {
		d.perSecond.Add(now.Add(-time.Duration(s)*time.Second).UnixNano(), 1000+s)
	}
	d.draw()
	for _, line := range strings.Split(buf.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
	if !strings.Contains(buf.String(), "TPS, last 60 s") {
		t.Errorf("no sparkline:\n%s", buf.String())
	}
}
