//go:build !linux

package httpserve

import "net"

// rawWrites leaves c as it is: raw writes are Linux's (rawwrite_linux.go).
func rawWrites(c net.Conn) net.Conn { return c }
