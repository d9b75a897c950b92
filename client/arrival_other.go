//go:build !linux

package client

import "net"

// stampArrivals leaves the connection alone: kernel receive timestamps
// are read on Linux only; elsewhere a read is stamped when it returns.
func stampArrivals(c net.Conn) net.Conn { return c }
