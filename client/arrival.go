package client

import (
	"context"
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

// DialStamped is a DialContext for an http.Transport: it dials as the
// client does (30 s timeout and keep-alive) and wraps each connection with
// StampArrivals.
func DialStamped(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := stampedDialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return StampArrivals(c), nil
}

var stampedDialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
