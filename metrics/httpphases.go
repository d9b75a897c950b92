package metrics

import "github.com/tpsbench/tpsbench/record"

// HTTPPhases are where a step's completed requests spent their time in
// the HTTP transport (record.HTTPPhases), each phase a distribution in ms
// named as k6 names it, with how many requests went on a connection not
// dialled for them. Duration is k6's http_req_duration: sending + waiting
// + receiving, the exchange without the connection's setup.
type HTTPPhases struct {
	Requests   int  `json:"requests"` // the completed requests whose phases were measured
	Reused     int  `json:"connections_reused"`
	Blocked    Dist `json:"blocked_ms"`
	DNS        Dist `json:"dns_ms"`
	Connecting Dist `json:"connecting_ms"`
	TLS        Dist `json:"tls_ms"`
	Sending    Dist `json:"sending_ms"`
	Waiting    Dist `json:"waiting_ms"`
	Receiving  Dist `json:"receiving_ms"`
	Duration   Dist `json:"duration_ms"`
}

// ReusedShare is the share of the requests on a reused connection.
func (p *HTTPPhases) ReusedShare() float64 {
	if p.Requests == 0 {
		return 0
	}
	return float64(p.Reused) / float64(p.Requests)
}

// Each gives every phase's distribution with its k6 name (http_req_ and
// it: record.HTTPPhaseNames, then duration), in the order a request goes
// through them.
func (p *HTTPPhases) Each(f func(name string, d *Dist)) {
	for i, d := range p.dists() {
		name := "duration"
		if i < len(record.HTTPPhaseNames) {
			name = record.HTTPPhaseNames[i]
		}
		f(name, d)
	}
}

// dists are the phases' distributions in record.HTTPPhaseNames' order,
// then the duration.
func (p *HTTPPhases) dists() [len(record.HTTPPhaseNames) + 1]*Dist {
	return [...]*Dist{&p.Blocked, &p.DNS, &p.Connecting, &p.TLS, &p.Sending, &p.Waiting, &p.Receiving, &p.Duration}
}

// httpAcc gathers the phases of a step's completed requests; its
// histograms are made with the first request that has phases (the
// engine in process has none).
type httpAcc struct {
	requests, reused int
	phases           [len(record.HTTPPhaseNames) + 1]*histogram // as HTTPPhases.dists
}

func (a *httpAcc) add(r *record.Record) {
	times, ok := r.HTTPPhaseTimes()
	if !ok {
		return
	}
	if a.requests == 0 {
		for i := range a.phases {
			a.phases[i] = newLatency()
		}
	}
	a.requests++
	if r.HTTP.Reused {
		a.reused++
	}
	var exchange int64 // k6's duration: sending, waiting and receiving
	for i, ns := range times {
		a.phases[i].add(float64(ns))
		if name := record.HTTPPhaseNames[i]; name == "sending" || name == "waiting" || name == "receiving" {
			exchange += ns
		}
	}
	a.phases[len(times)].add(float64(exchange))
}

// summary is the step's phases, or nil when no request had any.
func (a *httpAcc) summary(percentiles []float64) *HTTPPhases {
	if a.requests == 0 {
		return nil
	}
	p := &HTTPPhases{Requests: a.requests, Reused: a.reused}
	for i, d := range p.dists() {
		*d = a.phases[i].summary(1e6)
		withPercentiles(d, a.phases[i], 1e6, percentiles)
	}
	return p
}
