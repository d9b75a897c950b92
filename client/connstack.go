package client

import (
	"net"
	"sync"
)

// connStack holds open connections for requests to come, newest on top:
// those opened before a step, and those an answer left kept alive.
type connStack struct {
	mu    sync.Mutex
	conns []net.Conn
}

// pop returns the newest connection the server has not closed while it
// waited (those it has are closed and passed over), or nil.
func (s *connStack) pop() net.Conn {
	for {
		s.mu.Lock()
		n := len(s.conns)
		if n == 0 {
			s.mu.Unlock()
			return nil
		}
		c := s.conns[n-1]
		s.conns = s.conns[:n-1]
		s.mu.Unlock()
		if !closedByPeer(c) {
			return c
		}
		c.Close()
	}
}

// push puts c on top while fewer than limit are held, and says whether it
// did.
func (s *connStack) push(c net.Conn, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) >= limit {
		return false
	}
	s.conns = append(s.conns, c)
	return true
}

// len is how many are held.
func (s *connStack) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// closeAll closes every connection held.
func (s *connStack) closeAll() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}
