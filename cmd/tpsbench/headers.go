package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

// runHeaders are the headers of the runs whose records a command reads.
type runHeaders []record.Header

// leadingHeaders are the run headers at the head of each file (a run's
// records file begins with its own): read before the records, since the
// targets they hold decide how each record is counted.
func leadingHeaders(paths []string) runHeaders {
	var out runHeaders
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			continue // the reading of the records says why
		}
		out = append(out, record.LeadingHeaders(f, path)...)
		f.Close()
	}
	return out
}

// targets are the targets the runs checked, the first run's that had
// any: a report of their records gives the verdicts the run gave, unless
// --slo or --target-use says otherwise. Runs that checked other targets
// are said to be reported by the first's.
func (hs runHeaders) targets(warn io.Writer) metrics.Targets {
	var ts metrics.Targets
	var first []byte
	for _, h := range hs {
		if len(h.Targets) == 0 {
			continue
		}
		if first == nil {
			if err := json.Unmarshal(h.Targets, &ts); err != nil || ts.Check() != nil {
				fmt.Fprintf(warn, "tpsbench: warning: run %s's targets cannot be read back; reported without them\n", h.Run)
				return metrics.Targets{}
			}
			first = h.Targets
		} else if string(h.Targets) != string(first) {
			fmt.Fprintf(warn, "tpsbench: warning: the runs checked different targets; all are reported against run %s's\n", hs[0].Run)
			break
		}
	}
	return ts
}

// sent is what every request carried besides its prompt, as the first
// run that says it does.
func (hs runHeaders) sent() map[string]any {
	for _, h := range hs {
		if h.Sent != nil {
			return h.Sent
		}
	}
	return nil
}
