package client

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// arrivalConn reads a TCP connection with recvmsg and the kernel's receive
// timestamp (SO_TIMESTAMPNS): the time the last segment a read returns
// entered the machine. A client whose core is busy reads late; with this
// stamp its records still say when the bytes came, not when it got round
// to them.
type arrivalConn struct {
	net.Conn
	raw    syscall.RawConn
	recvFn func(fd uintptr) bool // a.recv, bound once: Read allocates nothing

	// the read under way, filled in by recv; mu keeps concurrent Reads
	// (which net.Conn allows) from sharing it
	mu  sync.Mutex
	p   []byte
	n   int
	err error
	msg unix.Msghdr
	iov unix.Iovec
	oob [64]byte

	arrived atomic.Int64 // ns after arrivalEpoch; 0 before any bytes
	// stamped: the last read's time came from the kernel. The kernel
	// turns receive stamping on for the system some time after the first
	// socket asks (a deferred static key), so the first reads may lack it.
	stamped atomic.Bool
}

// arrivalEpoch anchors stored arrival times on the monotonic clock.
var arrivalEpoch = time.Now()

// StampArrivals wraps a TCP connection so its reads learn when their bytes
// arrived (see ArrivalOf); anything else, or a kernel that refuses, is
// returned as is.
func StampArrivals(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c
	}
	a := &arrivalConn{Conn: c, raw: raw}
	a.recvFn = a.recv
	return a
}

func (a *arrivalConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	a.mu.Lock()
	a.p = p
	err := a.raw.Read(a.recvFn) // deadlines and Close apply as to a plain Read
	n, rerr := a.n, a.err
	a.p, a.iov.Base = nil, nil
	a.mu.Unlock()
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: a.LocalAddr(), Addr: a.RemoteAddr(), Err: os.NewSyscallError("recvmsg", rerr)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// recv makes one recvmsg call; false asks the poller to wait for data.
func (a *arrivalConn) recv(fd uintptr) bool {
	a.iov.Base = &a.p[0]
	a.iov.SetLen(len(a.p))
	a.msg.Iov = &a.iov
	a.msg.SetIovlen(1)
	a.msg.Control = &a.oob[0]
	a.msg.SetControllen(len(a.oob))
	var n uintptr
	var errno syscall.Errno
	for {
		// Raw: the socket is non-blocking (the poller waits), so the call
		// cannot block, and the scheduler need not hear of it. Through
		// unix.Syscall, each token's read woke the runtime's sysmon
		// thread from its idle sleep: with it, 2.7 context switches and
		// 205 us of CPU a streamed token at concurrency 1 (/usr/bin/time,
		// three runs of 2,176 tokens); without, 1.1 and 135 us, CPU left
		// to the server when both share the machine.
		n, _, errno = unix.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&a.msg)), 0)
		if errno != unix.EINTR {
			break
		}
	}
	if errno == unix.EAGAIN {
		return false
	}
	now := time.Now()
	if errno != 0 {
		a.n, a.err = 0, errno
		return true
	}
	a.n, a.err = int(n), nil
	if n == 0 {
		return true
	}
	at := now
	// The kernel's stamp is wall-clock time: it becomes a delay, which
	// moves the monotonic reading taken just now. A delay that is negative
	// or implausible (the wall clock stepped) leaves the reading as it is.
	ts, ok := a.kernelStamp()
	a.stamped.Store(ok)
	if ok {
		if d := now.UnixNano() - ts; d > 0 && d < int64(time.Minute) {
			at = now.Add(-time.Duration(d))
		}
	}
	a.arrived.Store(int64(at.Sub(arrivalEpoch)))
	return true
}

// kernelStamp finds the SCM_TIMESTAMPNS message of the last recvmsg.
func (a *arrivalConn) kernelStamp() (int64, bool) {
	b := a.oob[:min(int(a.msg.Controllen), len(a.oob))]
	for len(b) > 0 {
		h, data, rest, err := unix.ParseOneSocketControlMessage(b)
		if err != nil {
			return 0, false
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS {
			var sec, nsec int64
			switch len(data) {
			case 16:
				sec, nsec = int64(binary.NativeEndian.Uint64(data)), int64(binary.NativeEndian.Uint64(data[8:]))
			case 8: // 32-bit platforms
				sec, nsec = int64(int32(binary.NativeEndian.Uint32(data))), int64(int32(binary.NativeEndian.Uint32(data[4:])))
			default:
				return 0, false
			}
			return sec*1e9 + nsec, sec != 0 || nsec != 0
		}
		b = rest
	}
	return 0, false
}

// NetConn is the connection it reads: writes go to it as they are, a
// request's parts in one writev (net.Buffers writes them one by one to a
// connection it does not know, each its own segment).
func (a *arrivalConn) NetConn() net.Conn { return a.Conn }

// Arrived returns when the bytes of the last read arrived, and false
// before any read returned bytes.
func (a *arrivalConn) Arrived() (time.Time, bool) {
	ns := a.arrived.Load()
	return arrivalEpoch.Add(time.Duration(ns)), ns != 0
}

// closedByPeer says whether the server closed c (or sent on it unasked)
// while it waited unused: a peek that finds an end of stream, an error or
// bytes. One that finds nothing yet is open.
func closedByPeer(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if a, isArrival := c.(*arrivalConn); isArrival {
		sc, ok = a.Conn.(syscall.Conn)
	}
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	closed := false
	var b [1]byte
	err = raw.Control(func(fd uintptr) {
		_, _, rerr := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		closed = rerr != unix.EAGAIN
	})
	return err != nil || closed
}
