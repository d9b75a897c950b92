//go:build !linux

package client

import "net"

// StampArrivals leaves the connection alone: kernel receive timestamps
// are read on Linux only; elsewhere a read is stamped when it returns.
func StampArrivals(c net.Conn) net.Conn { return c }

// closedByPeer cannot look without a read here: a connection opened
// before a step is taken as open, and a request on one the server closed
// fails as a connect failure.
func closedByPeer(net.Conn) bool { return false }
