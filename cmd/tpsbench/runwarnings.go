package main

import (
	"fmt"
	"io"

	"github.com/tpsbench/tpsbench/internal/termsafe"
	"github.com/tpsbench/tpsbench/metrics"
)

// warnBusyClient says on stderr which steps the client itself may have
// limited: a figure of the run, not of its records, so it is no report's.
func warnBusyClient(w io.Writer, steps []metrics.Summary) {
	for _, s := range steps {
		if c := s.Client; c != nil && c.Busy() {
			fmt.Fprintf(w, "tpsbench: warning: step %s: the client used %.0f%% of this machine's %d cores (%.2f CPU-s in %.2f s); the figures may show the client's limit, not the server's\n",
				termsafe.String(s.Label), 100*c.Share, c.Cores, c.CPUSeconds, c.WallSeconds)
		}
	}
}

// warnStoppedEarly says on stderr which steps --max-errors or
// --max-error-rate stopped early: a figure of the run, which no report of
// its records carries.
func warnStoppedEarly(w io.Writer, steps []metrics.Summary) {
	for _, s := range steps {
		if e := s.Stopped; e != nil {
			flag := "--max-errors"
			if e.ByRate() {
				flag = "--max-error-rate"
			}
			fmt.Fprintf(w, "tpsbench: step %s stopped early (%s): %s; the requests in flight had their grace\n", termsafe.String(s.Label), flag, e)
		}
	}
}

// openedWorthNoting is the connections opened before a step from which
// the run says so: from there the dials would have cost the first
// requests tens of ms.
const openedWorthNoting = 100

// noteOpenedConnections says on stderr how many connections each step
// opened before its first requests: a figure of the run.
func noteOpenedConnections(w io.Writer, steps []metrics.Summary) {
	for _, s := range steps {
		if o := s.Opened; o != nil && o.Count >= openedWorthNoting {
			fmt.Fprintf(w, "tpsbench: step %s: %d connections opened before its first requests, in %.0f ms (in no request's figures)\n", termsafe.String(s.Label), o.Count, o.MS)
		}
	}
}

// noteClientMemory says on stderr the most memory the client held over
// each step of openedWorthNoting streams or more, and that over its
// streams: a figure of the run, which thousands of streams make worth
// knowing before a machine runs out.
func noteClientMemory(w io.Writer, steps []metrics.Summary) {
	for _, s := range steps {
		c := s.Client
		if c == nil || c.Streams < openedWorthNoting || c.BytesPerStream() == 0 {
			continue
		}
		fmt.Fprintf(w, "tpsbench: step %s: the client held at most %.0f MB for %d streams, %.0f KB a stream (its fixed memory included)\n",
			termsafe.String(s.Label), float64(c.PeakBytes)/(1<<20), c.Streams, float64(c.BytesPerStream())/(1<<10))
	}
}

// crowdedShare is the share of chunks batched from which a run that
// started an engine on every core says the client was crowded out.
const crowdedShare = 0.05

// warnEngineCrowdsClient says on stderr when an engine the run started
// took all the machine's cores (cores, or 0 when none did) and many
// chunks came in one read with the one before: the engine flushes each
// token, so the client read them late. On two cores, 4-7% of chunks
// came so at 8 streams; one engine thread left the client a core, and
// 0-1%, at 64% of the system TPS (bench/colocation.sh).
func warnEngineCrowdsClient(w io.Writer, steps []metrics.Summary, cores int) {
	if cores < 2 {
		return
	}
	for _, s := range steps {
		if s.Chunks == 0 || float64(s.BatchedChunks) < crowdedShare*float64(s.Chunks) {
			continue
		}
		fmt.Fprintf(w, "tpsbench: warning: step %s: %.0f%% of chunks came in one read with the chunk before while the engine's threads took all %d cores: the client read them late (its ITL less exact); --engine-threads %d leaves it a core\n",
			termsafe.String(s.Label), 100*float64(s.BatchedChunks)/float64(s.Chunks), cores, cores-1)
	}
}
