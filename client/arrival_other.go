//go:build !linux

package client

import "net"

// StampArrivals leaves the connection alone: kernel receive timestamps
// are read on Linux only; elsewhere a read is stamped when it returns.
func StampArrivals(c net.Conn) net.Conn { return c }
