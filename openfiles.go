package tpsbench

import (
	"fmt"

	"github.com/tpsbench/tpsbench/internal/procfd"
)

// spareFiles are the files a run opens besides its streams' connections:
// a records file, the server metrics scraped, a metrics listener.
const spareFiles = 16

// checkOpenFiles refuses a plan with a step whose streams need more
// connections than this process may open. Past its limit each one more
// fails to connect: 4,096 streams under a limit of 1,500 measured 2,606
// connect failures ("too many open files") and nothing of the server.
func checkOpenFiles(steps []Step, serverInProcess bool) error {
	free, limit, ok := procfd.Free()
	if !ok {
		return nil
	}
	for i, s := range steps {
		if _, ok := s.Client.(connectionOpener); !ok {
			continue
		}
		streams := s.Profile.Streams()
		need, what := min(streams, 1<<40), "as many connections" // doubled below, never past an int
		if serverInProcess {
			// the server's end of each connection is in this process too
			need, what = 2*need, fmt.Sprintf("%d files (both ends of a connection, the server being in this process)", 2*need)
		}
		if need == 0 || need+spareFiles <= free {
			continue
		}
		enough := limit - free + need + spareFiles
		fix := fmt.Sprintf("raise the limit (ulimit -n %d in the shell that starts it; past the hard limit, as root or with LimitNOFILE in a service) or spread the load over processes (--shard)", enough)
		if most, ok := procfd.Ceiling(); ok && enough > most {
			fix = fmt.Sprintf("that is more than one process may open here (fs.nr_open is %d): spread the load over processes (--shard)", most)
		}
		return fmt.Errorf("step %d (%s): %d streams need %s, and this process may open %d more files (its limit is %d; %d are open): %s",
			i, s.Label, streams, what, max(free, 0), limit, limit-free, fix)
	}
	return nil
}
