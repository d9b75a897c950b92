package httpserve

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// WriteStall bounds how long one write to a client may wait: a client
// that stops reading a stream fills its socket's buffers, and without a
// bound the handler blocked on it held its connection (and everything it
// buffered) for ever; 4,096 such clients held every connection the cap
// allows. The deadline moves with progress, so a stream of any length
// whose client keeps reading is never cut.
const WriteStall = 30 * time.Second

// writeStall is WriteStall, shortened by tests.
var writeStall = WriteStall

// stallConn sets a write deadline of writeStall ahead before its writes
// (renewed once an eighth of it has passed, not at every write), and
// closes the connection when a write runs past it: the server's
// background read then ends the request's context, so the handler stops
// making what nobody reads.
// A deadline its user sets (SetWriteDeadline, SetDeadline) is kept
// instead, until cleared.
type stallConn struct {
	net.Conn
	renewed atomic.Int64 // when the deadline was last set, in Unix ns
	own     atomic.Bool  // the user's deadline holds
}

func (c *stallConn) SetWriteDeadline(t time.Time) error {
	c.own.Store(!t.IsZero())
	c.renewed.Store(0)
	return c.Conn.SetWriteDeadline(t)
}

func (c *stallConn) SetDeadline(t time.Time) error {
	c.own.Store(!t.IsZero())
	c.renewed.Store(0)
	return c.Conn.SetDeadline(t)
}

func (c *stallConn) Write(p []byte) (int, error) {
	if now := time.Now(); !c.own.Load() && now.UnixNano()-c.renewed.Load() > int64(writeStall/8) {
		c.renewed.Store(now.UnixNano())
		_ = c.Conn.SetWriteDeadline(now.Add(writeStall))
	}
	n, err := c.Conn.Write(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		_ = c.Conn.Close()
	}
	return n, err
}
