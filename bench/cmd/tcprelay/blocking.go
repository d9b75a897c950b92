//go:build unix

package main

import (
	"net"
	"os"
	"runtime"
	"syscall"
)

// relayBlocking forwards c to upstream with a locked OS thread a direction
// blocked in read(2) and write(2) on its own copy of each descriptor.
func relayBlocking(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	cf, err := blockingFile(c)
	if err != nil {
		return
	}
	defer cf.Close()
	uf, err := blockingFile(u)
	if err != nil {
		return
	}
	defer uf.Close()
	done := make(chan struct{})
	go func() {
		pump(cf, uf)
		close(done)
	}()
	pump(uf, cf)
	<-done
}

// blockingFile is a duplicate of the connection's descriptor in blocking
// mode (the mode is shared with the original, which is no longer read).
func blockingFile(c net.Conn) (*os.File, error) {
	f, err := c.(*net.TCPConn).File()
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// pump copies from one descriptor to the other until EOF or an error, then
// half-closes the destination so the far side sees the end.
func pump(from, to *os.File) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	src, dst := int(from.Fd()), int(to.Fd())
	buf := make([]byte, 32<<10)
	for {
		n, err := syscall.Read(src, buf)
		if n <= 0 || err != nil {
			syscall.Shutdown(dst, syscall.SHUT_WR)
			return
		}
		for off := 0; off < n; {
			m, err := syscall.Write(dst, buf[off:n])
			if err != nil {
				return
			}
			off += m
		}
	}
}
