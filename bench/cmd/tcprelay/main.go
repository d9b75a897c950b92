//go:build unix

// Command tcprelay forwards TCP connections byte for byte and does nothing
// else: the floor any user-space hop costs on a machine, against which
// bench/proxy.sh sets the measuring proxy. With -blocking each direction
// is an OS thread in blocking reads and writes, as a C relay's would be, so
// that the floor is seen without Go's scheduler and poller in the way.
//
//	tcprelay -listen 127.0.0.1:18753 -upstream 127.0.0.1:18751
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18753", "address to accept on")
	upstream := flag.String("upstream", "127.0.0.1:18751", "address to forward to")
	blocking := flag.Bool("blocking", false, "one OS thread a direction in blocking system calls")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tcprelay:", err)
		os.Exit(1)
	}
	forward := relay
	if *blocking {
		forward = relayBlocking
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "tcprelay:", err)
			os.Exit(1)
		}
		go forward(c, *upstream)
	}
}

func relay(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	go func() {
		io.Copy(u, c)
		u.(*net.TCPConn).CloseWrite()
	}()
	// a plain read-write loop, as a proxy's is (io.Copy would splice)
	buf := make([]byte, 32<<10)
	for {
		n, err := u.Read(buf)
		if n > 0 {
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
