package client

import (
	"crypto/tls"
	"net"
	"time"
)

// arrivalStamper is a connection that knows when the bytes of its last
// read arrived (see StampArrivals).
type arrivalStamper interface {
	Arrived() (time.Time, bool)
}

// ArrivalOf returns the stamp function for reads from c (a connection
// from StampArrivals, or TLS over one): when the bytes the last read
// returned arrived, or nil where c cannot tell.
func ArrivalOf(c net.Conn) func() time.Time {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	s, ok := c.(arrivalStamper)
	if !ok {
		return nil
	}
	return func() time.Time {
		if at, ok := s.Arrived(); ok {
			return at
		}
		return time.Now()
	}
}
