package client

import (
	"net"
	"testing"
)

// tcpPair is a client connection and its server side.
func tcpPair(t *testing.T, ln net.Listener) (client, server net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c, s
}

// TestConnStack: newest first, none past the limit, a connection the
// server closed while it waited passed over (and closed), all closed at
// the end.
func TestConnStack(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var s connStack
	a, _ := tcpPair(t, ln)
	b, bServer := tcpPair(t, ln)
	c, _ := tcpPair(t, ln)
	if !s.push(a, 2) || !s.push(b, 2) || s.push(c, 2) || s.len() != 2 {
		t.Fatalf("pushed past a limit of 2: %d held", s.len())
	}
	if got := s.pop(); got != b {
		t.Fatal("the newest was not taken first")
	}
	s.push(b, 2)
	bServer.Close()
	waitFor(func() bool { return closedByPeer(b) })
	if got := s.pop(); got != a {
		t.Fatal("a connection its server closed was taken")
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Error("the connection its server closed was left open")
	}
	if s.pop() != nil || s.len() != 0 {
		t.Fatal("an empty stack gave a connection")
	}
	s.push(a, 2)
	s.push(c, 2)
	s.closeAll()
	if _, err := a.Write([]byte("x")); err == nil || s.len() != 0 {
		t.Error("closeAll left a connection open")
	}
}
