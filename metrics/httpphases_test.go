package metrics

import (
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestHTTPPhasesOfAStep: the phases are of the completed requests that
// went over HTTP. Two requests: the first dialled (blocked 1 ms, DNS 2,
// connecting 3, TLS 4), sent in 5 ms, waited 100 and received 200; the
// second reused its connection, sent in 1 ms, waited 50, received 400.
// Sending is the record's upload, duration sending + waiting + receiving
// (305 and 451 ms). A failed request, a warm-up and one without phases
// (the engine in process) count in none.
func TestHTTPPhasesOfAStep(t *testing.T) {
	s := NewAccumulator(Targets{})
	dialled := away(5000, 100, 300)
	dialled.Upload = 5 * ms
	dialled.HTTP = &record.HTTPPhases{Blocked: 1 * ms, DNS: 2 * ms, Connecting: 3 * ms, TLS: 4 * ms, Waiting: 100 * ms, Receiving: 200 * ms}
	reused := away(6000, 50, 450)
	reused.Upload = 1 * ms
	reused.HTTP = &record.HTTPPhases{Reused: true, Waiting: 50 * ms, Receiving: 400 * ms}
	failed := away(7000, 10)
	failed.HTTP = &record.HTTPPhases{Connecting: 900 * ms}
	failed.Fail(record.KindHTTPStatus, "HTTP 500")
	warm := away(100, 10)
	warm.Warmup, warm.HTTP = true, &record.HTTPPhases{Blocked: 900 * ms}
	for _, r := range []*record.Record{dialled, reused, failed, warm, away(8000, 10)} {
		s.Add(r)
	}
	p := s.Summary().HTTP
	if p == nil {
		t.Fatal("no HTTP phases")
	}
	if p.Requests != 2 || p.Reused != 1 || p.ReusedShare() != 0.5 {
		t.Errorf("%d requests, %d reused (share %v); want 2, 1", p.Requests, p.Reused, p.ReusedShare())
	}
	want := map[string][2]float64{ // min, max in ms
		"blocked": {0, 1}, "dns": {0, 2}, "connecting": {0, 3}, "tls_handshaking": {0, 4},
		"sending": {1, 5}, "waiting": {50, 100}, "receiving": {200, 400}, "duration": {305, 451},
	}
	seen := 0
	p.Each(func(name string, d *Dist) {
		seen++
		w, ok := want[name]
		if !ok {
			t.Errorf("a phase named %q", name)
			return
		}
		if d.Count != 2 || d.Min != w[0] || d.Max != w[1] || d.Mean != (w[0]+w[1])/2 {
			t.Errorf("%s: %+v, want 2 samples of %v and %v ms", name, *d, w[0], w[1])
		}
	})
	if seen != len(want) {
		t.Errorf("%d phases, want %d", seen, len(want))
	}

	engine := NewAccumulator(Targets{})
	engine.Add(away(5000, 100))
	if engine.Summary().HTTP != nil {
		t.Error("phases for requests that went over no HTTP")
	}
}
