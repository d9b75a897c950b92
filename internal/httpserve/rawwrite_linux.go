package httpserve

import (
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawWriteConn writes a TCP connection with raw send(2) calls, as the
// client reads with raw recvmsg (client/arrival_linux.go). Through net's
// Write each send is a scheduled system call: the runtime hears of it,
// and its sysmon thread may hand the caller's P to another thread while
// the call runs, which on a server whose engine keeps every core busy
// costs the step a thread's wake-up. A streaming server makes a send a
// token. The socket is non-blocking (the poller waits when it is full),
// so a raw call cannot block. Together with the engine's pool keeping
// its step's thread from the handlers (engine/llama/pool.go, which gives
// the figures), it shortened the default model's served steps at c=1 by
// a tenth; either alone changed nothing measurable.
type rawWriteConn struct {
	net.Conn
	raw     syscall.RawConn
	writeFn func(fd uintptr) bool // c.write, bound once: Write allocates nothing

	// the write under way, filled in by write; mu keeps concurrent Writes
	// (which net.Conn allows) from sharing it
	mu  sync.Mutex
	p   []byte
	n   int
	err error
}

// rawWrites wraps a TCP connection so its writes are raw send calls;
// anything else, or a connection that will not give its descriptor, is
// returned as is.
func rawWrites(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	w := &rawWriteConn{Conn: c, raw: raw}
	w.writeFn = w.write
	return w
}

func (c *rawWriteConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for len(p) > 0 {
		c.p = p
		err := c.raw.Write(c.writeFn) // deadlines and Close apply as to a plain Write
		n, werr := c.n, c.err
		c.p, c.n, c.err = nil, 0, nil
		total += n
		p = p[n:]
		switch {
		case err != nil:
			return total, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
		case werr != nil:
			return total, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("send", werr)}
		}
	}
	return total, nil
}

// write makes one send call; false asks the poller to wait for room.
func (c *rawWriteConn) write(fd uintptr) bool {
	for {
		// MSG_NOSIGNAL: a client gone is an EPIPE error, never a signal
		n, _, errno := unix.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&c.p[0])), uintptr(len(c.p)), unix.MSG_NOSIGNAL, 0, 0)
		switch errno {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		case 0:
			c.n, c.err = int(n), nil
		default:
			c.n, c.err = 0, errno
		}
		return true
	}
}
