package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/metrics"
)

// TestWarnBusyClient: a warning for a step whose client took 75% of the
// cores or more, none below, none without a figure.
func TestWarnBusyClient(t *testing.T) {
	steps := []metrics.Summary{
		{Label: "busy", Client: metrics.NewClientLoad(7.5, 5, 2)}, // 75%
		{Label: "calm", Client: metrics.NewClientLoad(7.4, 5, 2)}, // 74%
		{Label: "engine"}, // server in process
		{Label: "b\x1b[2J", Client: metrics.NewClientLoad(4, 4, 1)}, // 100%
	}
	var buf bytes.Buffer
	warnBusyClient(&buf, steps)
	out := buf.String()
	if !strings.Contains(out, "step busy: the client used 75% of this machine's 2 cores (7.50 CPU-s in 5.00 s)") ||
		strings.Contains(out, "calm") || strings.Contains(out, "engine") || strings.Count(out, "\n") != 2 || strings.Contains(out, "\x1b") {
		t.Fatalf("warnings:\n%q", out)
	}
}

// TestNoteOpenedConnections: a step that opened 100 connections or more
// before its first requests says so; fewer, or none, say nothing.
func TestNoteOpenedConnections(t *testing.T) {
	steps := []metrics.Summary{
		{Label: "wide", Opened: &metrics.OpenedConnections{Count: 100, MS: 12.4}},
		{Label: "narrow", Opened: &metrics.OpenedConnections{Count: 99, MS: 3}},
		{Label: "reused"},
	}
	var buf bytes.Buffer
	noteOpenedConnections(&buf, steps)
	if out := buf.String(); out != "tpsbench: step wide: 100 connections opened before its first requests, in 12 ms (in no request's figures)\n" {
		t.Fatalf("notes:\n%q", out)
	}
}

// TestNoteClientMemory: a step of 100 streams or more says the most its
// client held and that over its streams; fewer streams, or no figure,
// say nothing.
func TestNoteClientMemory(t *testing.T) {
	steps := []metrics.Summary{
		{Label: "wide", Client: &metrics.ClientLoad{PeakBytes: 200 << 20, Streams: 4096}},
		{Label: "narrow", Client: &metrics.ClientLoad{PeakBytes: 30 << 20, Streams: 99}},
		{Label: "unknown", Client: &metrics.ClientLoad{Streams: 4096}},
		{Label: "engine"},
	}
	var buf bytes.Buffer
	noteClientMemory(&buf, steps)
	if out := buf.String(); out != "tpsbench: step wide: the client held at most 200 MB for 4096 streams, 50 KB a stream (its fixed memory included)\n" {
		t.Fatalf("notes:\n%q", out)
	}
}

// TestWarnEngineCrowdsClient: with the engine on every core, a step whose
// chunks came batched 5% of the time or more is said to have its client
// crowded out; less, no engine on every core, or one core, say nothing.
func TestWarnEngineCrowdsClient(t *testing.T) {
	steps := []metrics.Summary{
		{Label: "crowded", Chunks: 100, BatchedChunks: 36},
		{Label: "calm", Chunks: 100, BatchedChunks: 4},
		{Label: "edge", Chunks: 20, BatchedChunks: 1},
		{Label: "empty"},
	}
	for _, c := range []struct {
		cores int
		want  string
	}{
		{2, "tpsbench: warning: step crowded: 36% of chunks came in one read with the chunk before while the engine's threads took all 2 cores: the client read them late (its ITL less exact); --engine-threads 1 leaves it a core\n" +
			"tpsbench: warning: step edge: 5% of chunks came in one read with the chunk before while the engine's threads took all 2 cores: the client read them late (its ITL less exact); --engine-threads 1 leaves it a core\n"},
		{1, ""},
		{0, ""},
	} {
		var buf bytes.Buffer
		warnEngineCrowdsClient(&buf, steps, c.cores)
		if buf.String() != c.want {
			t.Errorf("%d cores:\n%q\nwant\n%q", c.cores, buf.String(), c.want)
		}
	}
}
