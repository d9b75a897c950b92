package client

import (
	"crypto/tls"
	"net/http/httptrace"
	"sync/atomic"

	"github.com/tpsbench/tpsbench/record"
)

// phaseTrace gathers a request's HTTP phases (record.HTTPPhases) as the
// transport and its dialer report them, on their goroutines.
type phaseTrace struct {
	askedConn atomic.Int64 // when a connection was first asked for
	connAt    atomic.Int64 // when the last was in hand (a held send does not move it)
	firstByte atomic.Int64 // when the answer's first byte arrived
	reused    atomic.Bool
	dials     atomic.Int32 // TCP dials begun for the request

	// the dial phase under way's start, and each phase's time summed
	// over the request's dials
	dnsAt, connectAt, tlsAt atomic.Int64
	dns, connecting, tls    atomic.Int64
}

// dialHooks time a dial's phases. net's dialer calls the DNS and connect
// hooks of the trace a context carries, so the client's own HTTP/1.1
// dials (h1.go) are timed by the same hooks as net/http's.
func (t *sendTrace) dialHooks() *httptrace.ClientTrace {
	since := func(start *atomic.Int64, total *atomic.Int64) {
		if at := start.Load(); at != 0 {
			total.Add(max(0, t.clock.Now()-at))
		}
	}
	return &httptrace.ClientTrace{
		DNSStart:          func(httptrace.DNSStartInfo) { t.dnsAt.Store(t.clock.Now()) },
		DNSDone:           func(httptrace.DNSDoneInfo) { since(&t.dnsAt, &t.dns) },
		ConnectStart:      func(string, string) { t.dials.Add(1); t.connectAt.Store(t.clock.Now()) },
		ConnectDone:       func(string, string, error) { since(&t.connectAt, &t.connecting) },
		TLSHandshakeStart: func() { t.tlsAt.Store(t.clock.Now()) },
		TLSHandshakeDone:  func(tls.ConnectionState, error) { since(&t.tlsAt, &t.tls) },
	}
}

// gotConnection notes a connection in hand at now; reused says it was not
// dialled for this request.
func (t *sendTrace) gotConnection(now int64, reused bool) {
	t.gotConn.Store(now)
	t.connAt.Store(now)
	t.reused.Store(reused)
}

// arrivedFirst stamps the answer's first byte, by the kernel's arrival
// time where the connection tells it.
func (t *sendTrace) arrivedFirst() {
	at := t.clock.Now()
	if f := t.arrival.Load(); f != nil {
		at = t.clock.Since((*f)())
	}
	t.firstByte.CompareAndSwap(0, at)
}

// phases are the request's HTTP phases once rec has its Sent, Upload and
// Done.
func (t *sendTrace) phases(rec *record.Record) *record.HTTPPhases {
	p := &record.HTTPPhases{Reused: t.reused.Load(), DNS: t.dns.Load(), Connecting: t.connecting.Load(), TLS: t.tls.Load()}
	if asked, got := t.askedConn.Load(), t.connAt.Load(); asked != 0 && got >= asked {
		p.Blocked = max(0, got-asked-p.DNS-p.Connecting-p.TLS)
	}
	if first := t.firstByte.Load(); first != 0 {
		// a kernel's stamp can come before the hook that stamped the send
		first = min(max(first, rec.Sent), max(rec.Done, rec.Sent))
		p.Waiting = first - rec.Sent
		p.Receiving = max(0, rec.Done-first)
	}
	return p
}
