package e2e_test

import (
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
)

// TestHTTPPhasesInALoop: in a closed loop of 4 users over 12 requests,
// every record's waiting runs from its send to no sooner than the
// server's own wait before its first byte (its log's first event less
// its reading of the request) and no later than the first token; its
// receiving ends at its end. The first wave goes on connections opened
// before the step and every later request on one kept alive: all 12
// reuse one, none dials, and the step's figures count them so.
func TestHTTPPhasesInALoop(t *testing.T) {
	sc := scripted.Script{TTFT: 25 * time.Millisecond, Gap: 2 * time.Millisecond, Usage: true}
	r := measure(t, sc, true, load.Profile{Shape: load.Users{Count: 4}, Requests: 12}, 6)
	if len(r.recs) != 12 {
		t.Fatalf("%d records", len(r.recs))
	}
	for _, rec := range r.recs {
		p := rec.HTTP
		if p == nil || !rec.OK() {
			t.Fatalf("record %d: phases %v, error %+v", rec.Seq, p, rec.Error)
		}
		log, ok := r.srv.Log(rec.ResponseID)
		if !ok {
			t.Fatalf("no server log for %q", rec.ResponseID)
		}
		if serverWait := log.Events[0].Sub(log.Received); time.Duration(p.Waiting) < serverWait || p.Waiting > rec.First-rec.Sent {
			t.Errorf("record %d: waiting %v, want from the server's %v to the TTFT %v", rec.Seq, time.Duration(p.Waiting), serverWait, rec.TTFT())
		}
		if rec.Sent+p.Waiting+p.Receiving != rec.Done {
			t.Errorf("record %d: sent %d + waiting %d + receiving %d is not done %d", rec.Seq, rec.Sent, p.Waiting, p.Receiving, rec.Done)
		}
		if !p.Reused || p.Connecting != 0 || p.DNS != 0 || p.TLS != 0 {
			t.Errorf("record %d: reused %v, connecting %d, dns %d, tls %d", rec.Seq, p.Reused, p.Connecting, p.DNS, p.TLS)
		}
	}
	s := r.res.Steps[0]
	if s.HTTP == nil || s.HTTP.Requests != 12 || s.HTTP.Reused != 12 || s.HTTP.Waiting.Min < 25 {
		t.Errorf("the step's phases: %+v", s.HTTP)
	}
}
