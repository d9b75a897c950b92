package main

import (
	"github.com/spf13/pflag"

	"github.com/tpsbench/tpsbench/client"
)

// addTLSFlags defines how a command trusts an https server and proves
// itself to one that asks.
func addTLSFlags(fl *pflag.FlagSet, o *client.TLSOptions) {
	fl.BoolVar(&o.Insecure, "insecure", false, "accept any TLS certificate from the server (a self-signed test server's); the figures are unchanged, the trust is gone")
	fl.StringVar(&o.CAFile, "ca-cert", "", "PEM file of CA certificates to trust besides the system's (a private CA's)")
	fl.StringVar(&o.CertFile, "client-cert", "", "PEM certificate to present to a server that asks for one (mutual TLS), with --client-key")
	fl.StringVar(&o.KeyFile, "client-key", "", "PEM key of --client-cert")
}
