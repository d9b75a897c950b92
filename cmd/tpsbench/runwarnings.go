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
