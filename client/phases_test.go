package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// HTTP phases against servers whose timing is known: waiting starts at
// the send and ends at the answer's first byte, which the scripted server
// writes no sooner than its TTFT after reading the request, and no later
// than the first token read; receiving ends at Done; a dialled
// connection's phases fit between the test's own clock reading before
// the request and its send; a kept-alive one is reused and dials nothing.
func TestHTTPPhases(t *testing.T) {
	script := scripted.Script{TTFT: 30 * time.Millisecond, Gap: 5 * time.Millisecond, Tokens: 4}
	plain := scripted.New(script)
	defer plain.Close()
	secure := &scripted.Server{Handler: scripted.NewHandler(func(int) scripted.Script { return script }, true)}
	secure.Server = httptest.NewTLSServer(secure.Handler)
	defer secure.Close()
	roots := x509.NewCertPool()
	roots.AddCert(secure.Certificate())

	for _, tc := range []struct {
		name    string
		srv     *scripted.Server
		url     string
		tls     *tls.Config
		wantTLS bool
	}{
		{"own HTTP/1.1", plain, plain.URL, nil, false},
		{"by name (DNS)", plain, strings.Replace(plain.URL, "127.0.0.1", "localhost", 1), nil, false},
		{"TLS", secure, secure.URL, &tls.Config{RootCAs: roots}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, tc.url, func(cfg *HTTPConfig) { cfg.TLS = tc.tls })
			for i := range 2 {
				before := c.Clock().Now()
				var rec record.Record
				c.Do(context.Background(), &Request{Model: "m", Prompt: "hi", MaxTokens: 4}, &rec)
				if !rec.OK() {
					t.Fatalf("request %d: %+v", i, rec.Error)
				}
				p := rec.HTTP
				if p == nil {
					t.Fatalf("request %d: no HTTP phases", i)
				}
				sent, ok := tc.srv.Log(rec.ResponseID)
				if !ok {
					t.Fatalf("request %d: no log for %q", i, rec.ResponseID)
				}
				if serverWait := sent.Events[0].Sub(sent.Received); time.Duration(p.Waiting) < serverWait || p.Waiting > rec.First-rec.Sent {
					t.Errorf("request %d: waiting %v, want from the server's own %v to the TTFT %v", i, time.Duration(p.Waiting), serverWait, rec.TTFT())
				}
				if rec.Sent+p.Waiting+p.Receiving != rec.Done || p.Receiving < rec.Last-(rec.First) {
					t.Errorf("request %d: sent %d + waiting %d + receiving %d, done %d (tokens over %d ns)", i, rec.Sent, p.Waiting, p.Receiving, rec.Done, rec.Last-rec.First)
				}
				if setup := p.Blocked + p.DNS + p.Connecting + p.TLS + rec.Upload; setup > rec.Sent-before {
					t.Errorf("request %d: phases before the send sum to %d ns, longer than the %d ns from the test's clock to the send", i, setup, rec.Sent-before)
				}
				dialled := i == 0
				if p.Reused == dialled || (p.Connecting > 0) != dialled || (p.TLS > 0) != (dialled && tc.wantTLS) {
					t.Errorf("request %d: reused %v, connecting %d ns, TLS %d ns", i, p.Reused, p.Connecting, p.TLS)
				}
				if byName := strings.Contains(tc.url, "localhost"); (p.DNS > 0) != (byName && dialled) {
					t.Errorf("request %d to %s: DNS %d ns", i, tc.url, p.DNS)
				}
			}
		})
	}
}

// A connection refused still says how long the dial took, and nothing of
// an answer.
func TestHTTPPhasesRefused(t *testing.T) {
	c := newClient(t, "http://127.0.0.1:1", nil)
	var rec record.Record
	c.Do(context.Background(), &Request{Model: "m", Prompt: "hi", MaxTokens: 4}, &rec)
	if rec.OK() || rec.HTTP == nil || rec.HTTP.Reused || rec.HTTP.Connecting <= 0 || rec.HTTP.Waiting != 0 || rec.HTTP.Receiving != 0 {
		t.Fatalf("a refused request: error %+v, phases %+v", rec.Error, rec.HTTP)
	}
}
