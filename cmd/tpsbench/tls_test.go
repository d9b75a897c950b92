package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// keepDefaultTLS restores the process's default transport's TLS after a
// test that set it (client.UseTLS).
func keepDefaultTLS(t *testing.T) {
	tr := http.DefaultTransport.(*http.Transport)
	was := tr.TLSClientConfig
	t.Cleanup(func() { tr.TLSClientConfig = was })
}

// writePEM writes blocks to a file in dir and returns its path.
func writePEM(t *testing.T, dir, name string, blocks ...*pem.Block) string {
	t.Helper()
	var b strings.Builder
	for _, bl := range blocks {
		b.Write(pem.EncodeToMemory(bl))
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// clientCert makes a self-signed client certificate and its key.
func clientCert(t *testing.T) (*x509.Certificate, *pem.Block, *pem.Block) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "tpsbench test client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	keyDER, _ := x509.MarshalECPrivateKey(key)
	return cert, &pem.Block{Type: "CERTIFICATE", Bytes: der}, &pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}
}

// TestTLS: an https server with its own certificate is refused with the
// reason said, reached with --insecure or with its CA given (--ca-cert);
// one that asks for a client certificate is reached with --client-cert
// and --client-key and refuses a client without them.
func TestTLS(t *testing.T) {
	keepDefaultTLS(t)
	dir := t.TempDir()
	h := scripted.NewHandler(func(int) scripted.Script { return scripted.Script{Usage: true} }, false)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes refused are the test's
	srv.StartTLS()
	defer srv.Close()
	serverCA := writePEM(t, dir, "server.pem", &pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	run := func(extra ...string) (int, string, string) {
		return cli(t, append([]string{"run", "--url", srv.URL, "--model", "m", "--api", "chat", "--max-tokens", "3", "--requests", "2"}, extra...)...)
	}
	if code, out, errs := run(); code == 0 || !strings.Contains(out+errs, "--ca-cert FILE trusts the server's CA") {
		t.Errorf("an unknown certificate: exit %d\n%s%s", code, out, errs)
	}
	for _, flags := range [][]string{{"--insecure"}, {"--ca-cert", serverCA}} {
		if code, out, errs := run(flags...); code != 0 || !strings.Contains(out, "2 completed") {
			t.Errorf("%v: exit %d\n%s%s", flags, code, out, errs)
		}
	}

	cert, certPEM, keyPEM := clientCert(t)
	mtls := httptest.NewUnstartedServer(h)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	mtls.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	mtls.Config.ErrorLog = log.New(io.Discard, "", 0)
	mtls.StartTLS()
	defer mtls.Close()
	mtlsCA := writePEM(t, dir, "mtls.pem", &pem.Block{Type: "CERTIFICATE", Bytes: mtls.Certificate().Raw})
	certFile, keyFile := writePEM(t, dir, "client.pem", certPEM), writePEM(t, dir, "client.key", keyPEM)
	base := []string{"run", "--url", mtls.URL, "--model", "m", "--api", "chat", "--max-tokens", "3", "--requests", "2", "--ca-cert", mtlsCA}
	if code, out, errs := cli(t, append(base, "--client-cert", certFile, "--client-key", keyFile)...); code != 0 || !strings.Contains(out, "2 completed") {
		t.Errorf("mutual TLS: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := cli(t, base...); code == 0 && strings.Contains(out, "2 completed") {
		t.Errorf("a server asking for a client certificate answered a client without one:\n%s", out)
	}
	for _, bad := range [][]string{{"--client-cert", certFile}, {"--ca-cert", filepath.Join(dir, "none.pem")}, {"--ca-cert", keyFile}} {
		if code, _, errs := cli(t, append([]string{"run", "--url", srv.URL, "--model", "m"}, bad...)...); code != exitUsage || !strings.Contains(errs, "TLS") {
			t.Errorf("%v: exit %d %s", bad, code, errs)
		}
	}
}

// TestTraceTimingOverTLS: a run against a server behind TLS shows where
// its requests' time went: the first request's TLS handshake and TCP
// connect, the others on its connection, reused; text gives the table
// with --show-trace-timing, JSON always.
func TestTraceTimingOverTLS(t *testing.T) {
	keepDefaultTLS(t)
	h := scripted.NewHandler(func(int) scripted.Script { return scripted.Script{Usage: true, TTFT: 20 * time.Millisecond} }, false)
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	base := []string{"run", "--url", srv.URL, "--model", "m", "--api", "chat", "--max-tokens", "3", "--requests", "3", "--concurrency", "1", "--insecure"}
	code, out, errs := cli(t, append(base, "--show-trace-timing")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"HTTP phases (k6's http_req_*), 3 requests, 2 on a reused connection (67%)", "tls_handshaking", "connecting", "waiting"} {
		if !strings.Contains(out, want) {
			t.Errorf("the text report lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = cli(t, append(base, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep struct {
		Steps []struct {
			TTFT struct{ Min float64 } `json:"ttft_ms"`
			HTTP *struct {
				Requests   int                        `json:"requests"`
				Reused     int                        `json:"connections_reused"`
				TLS        struct{ Min, Max float64 } `json:"tls_ms"`
				Connecting struct{ Max float64 }      `json:"connecting_ms"`
				Waiting    struct{ Min float64 }      `json:"waiting_ms"`
			} `json:"http_phases"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Steps) != 1 || rep.Steps[0].HTTP == nil {
		t.Fatalf("%v: %s", err, out)
	}
	p := rep.Steps[0].HTTP
	// the server waits 20 ms after reading a request before its first byte
	if p.Requests != 3 || p.Reused != 2 || p.TLS.Min != 0 || p.TLS.Max <= 0 || p.Connecting.Max <= 0 || p.Waiting.Min < 20 {
		t.Errorf("HTTP phases %+v", *p)
	}
}
