package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"

	"github.com/tpsbench/tpsbench/internal/fileread"
)

// TLSOptions are how the client trusts a server over HTTPS, and how it
// proves itself to one that asks (mutual TLS).
type TLSOptions struct {
	Insecure bool   // accept any certificate (a self-signed test server's)
	CAFile   string // PEM certificates to trust besides the system's
	CertFile string // the client's certificate (PEM), with KeyFile
	KeyFile  string
}

// maxPEM bounds a certificate or key file.
const maxPEM = 1 << 20

// Config is the TLS configuration the options make, or nil when they ask
// for nothing (the system's roots, no client certificate).
func (o TLSOptions) Config() (*tls.Config, error) {
	if o == (TLSOptions{}) {
		return nil, nil
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, errors.New("a client certificate needs its key, and a key its certificate")
	}
	cfg := &tls.Config{InsecureSkipVerify: o.Insecure} //nolint:gosec // asked for by name
	if o.CAFile != "" {
		pem, err := fileread.AtMost(o.CAFile, maxPEM)
		if err != nil {
			return nil, fmt.Errorf("reading CA certificates: %w", err)
		}
		roots, err := x509.SystemCertPool()
		if err != nil || roots == nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate", o.CAFile)
		}
		cfg.RootCAs = roots
	}
	if o.CertFile != "" {
		certPEM, err := fileread.AtMost(o.CertFile, maxPEM)
		if err != nil {
			return nil, fmt.Errorf("reading the client certificate: %w", err)
		}
		keyPEM, err := fileread.AtMost(o.KeyFile, maxPEM)
		if err != nil {
			return nil, fmt.Errorf("reading the client key: %w", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("the client certificate %s and key %s: %w", o.CertFile, o.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// UseTLS makes every HTTP client of the process that has no transport of
// its own (server detection, model lists, /tokenize, metrics scrapes, the
// proxy's upstream) use cfg, as HTTPConfig.TLS does for the measuring
// client: a program sets it once, before its first request.
func UseTLS(cfg *tls.Config) {
	if cfg == nil {
		return
	}
	if tr, ok := http.DefaultTransport.(*http.Transport); ok {
		tr.TLSClientConfig = cfg.Clone()
	}
}
