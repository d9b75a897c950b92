package record

import "fmt"

// HTTPPhases is where a request's time went in the HTTP transport, in ns,
// named as k6 names its http_req_ metrics and the HAR format its timings
// (AIPerf's --show-trace-timing uses the same). The request's sending
// phase is the record's Upload, its start Sent - Upload; waiting runs from
// Sent to the answer's first byte (its status line, before any token);
// receiving from that byte to Done. A request held for its due time
// (Request.Hold) spends the hold between its connection and its send,
// which no phase counts.
type HTTPPhases struct {
	// Reused says the connection was not dialled for this request: kept
	// alive from an earlier answer, or opened before the step.
	Reused bool `json:"reused,omitempty"`
	// Blocked is from the request's start to a connection in hand, less
	// the dial's own phases below: the wait for the connection pool, and
	// for a retried request its earlier attempts.
	Blocked    int64 `json:"blocked_ns,omitempty"`
	DNS        int64 `json:"dns_ns,omitempty"`        // resolving the host (k6's looking_up)
	Connecting int64 `json:"connecting_ns,omitempty"` // the TCP handshake alone, as k6 has it (HAR's connect includes TLS)
	TLS        int64 `json:"tls_ns,omitempty"`        // the TLS handshake
	Waiting    int64 `json:"waiting_ns,omitempty"`    // Sent to the answer's first byte: time to first byte
	Receiving  int64 `json:"receiving_ns,omitempty"`  // the answer's first byte to Done
}

// HTTPPhaseNames are the phases a request goes through, in order, by
// k6's names (http_req_ and the name); HTTPPhaseTimes gives their times.
var HTTPPhaseNames = [...]string{"blocked", "dns", "connecting", "tls_handshaking", "sending", "waiting", "receiving"}

// HTTPPhaseTimes gives the ns of each of HTTPPhaseNames (sending is the
// record's Upload), or false where the request went over no HTTP.
func (r *Record) HTTPPhaseTimes() (ns [len(HTTPPhaseNames)]int64, ok bool) {
	p := r.HTTP
	if p == nil {
		return ns, false
	}
	return [...]int64{p.Blocked, p.DNS, p.Connecting, p.TLS, r.Upload, p.Waiting, p.Receiving}, true
}

// each gives the phases the record's HTTPPhases holds, by name, to f.
func (p *HTTPPhases) each(f func(name string, ns *int64)) {
	f("blocked", &p.Blocked)
	f("dns", &p.DNS)
	f("connecting", &p.Connecting)
	f("tls_handshaking", &p.TLS)
	f("waiting", &p.Waiting)
	f("receiving", &p.Receiving)
}

// phases holds a record's HTTP phases to [0, maxStamp].
func (c *checker) phases(r *Record) {
	if r.HTTP == nil {
		return
	}
	r.HTTP.each(func(name string, ns *int64) {
		if *ns < 0 || *ns > maxStamp {
			if c.broke("http phases", fmt.Errorf("record %d: http %s of %d ns", r.Seq, name, *ns)) {
				*ns = 0
			}
		}
	})
}
