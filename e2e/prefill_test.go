package e2e_test

import (
	"sort"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
)

// TestPrefillConcurrency: with at most 2 requests in prefill, no more than
// 2 are ever between the server reading a request and writing its first
// token, by the server's own log, where 8 users without the cap put more
// there at once; every request still completes.
func TestPrefillConcurrency(t *testing.T) {
	sc := scripted.Script{TTFT: 30 * time.Millisecond, Gap: 3 * time.Millisecond, Usage: true}
	for _, c := range []struct {
		limit int
		most  func(int) bool
	}{{2, func(n int) bool { return n <= 2 }}, {0, func(n int) bool { return n > 2 }}} {
		r := measure(t, sc, true, load.Profile{Shape: load.Users{Count: 8}, Requests: 16, MaxPrefill: c.limit}, 10)
		if s := r.res.Steps[0]; s.Requests.Completed != 16 {
			t.Fatalf("cap %d: requests %+v", c.limit, s.Requests)
		}
		if n := mostInPrefill(t, r); !c.most(n) {
			t.Errorf("cap %d: %d requests in prefill at once by the server's log", c.limit, n)
		}
	}
}

// mostInPrefill is the most requests the server held between reading one
// and writing its first token.
func mostInPrefill(t *testing.T, r run) int {
	type edge struct {
		at   time.Time
		step int
	}
	var edges []edge
	for _, rec := range r.recs {
		log, ok := r.srv.Log(rec.ResponseID)
		if !ok || len(log.Events) == 0 {
			t.Fatalf("no server log for %q", rec.ResponseID)
		}
		edges = append(edges, edge{log.Received, 1}, edge{log.Events[0], -1})
	}
	// an end before a start at the same instant: a slot given back, then taken
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at.Equal(edges[j].at) {
			return edges[i].step < edges[j].step
		}
		return edges[i].at.Before(edges[j].at)
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.step
		most = max(most, n)
	}
	return most
}
