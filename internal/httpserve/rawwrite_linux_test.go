package httpserve

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// tcpPair is a connected pair of TCP connections on loopback: the server
// side as Listen's Accept hands it to net/http, and the client side.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	if _, ok := server.(*countedConn).Conn.(*stallConn).Conn.(*rawWriteConn); !ok {
		t.Fatalf("Accept's connection writes with %T, not raw sends", server.(*countedConn).Conn.(*stallConn).Conn)
	}
	return server, client
}

// TestRawWritesArriveWhole: a write far larger than the sockets' buffers
// (shrunk to 64 kB, so that sends find them full and the poller waits
// for room) arrives whole and in order, as do many small writes after it.
func TestRawWritesArriveWhole(t *testing.T) {
	server, client := tcpPair(t)
	shrink := func(c net.Conn, opt int) {
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		if err := raw.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 64<<10) }); err != nil {
			t.Fatal(err)
		}
	}
	shrink(server.(*countedConn).Conn.(*stallConn).Conn.(*rawWriteConn).Conn, syscall.SO_SNDBUF)
	shrink(client, syscall.SO_RCVBUF)
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i*131 + i>>9) // a byte out of place shows
	}
	var want bytes.Buffer
	want.Write(big)
	small := make([][]byte, 1000)
	for i := range small {
		small[i] = []byte("data: token " + string(rune('a'+i%26)) + "\n\n")
		want.Write(small[i])
	}
	errc := make(chan error, 1)
	go func() {
		n, err := server.Write(big)
		if err == nil && n != len(big) {
			err = errors.New("short write")
		}
		for _, s := range small {
			if err != nil {
				break
			}
			_, err = server.Write(s)
		}
		server.Close()
		errc <- err
	}()
	got, err := io.ReadAll(client)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("got %d bytes, want %d, not the same", len(got), want.Len())
	}
}

// TestRawWritesKeepDeadlines: a write the peer never reads ends at its
// deadline with a timeout, as a plain TCP write does (net/http's write
// timeouts and ResponseController rely on it).
func TestRawWritesKeepDeadlines(t *testing.T) {
	server, _ := tcpPair(t)
	if err := server.SetWriteDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	n, err := server.Write(make([]byte, 256<<20))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write past its deadline: %d bytes, error %v, want a deadline error", n, err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("error %v is not a net.Error timeout", err)
	}
	if n <= 0 || n >= 256<<20 {
		t.Fatalf("wrote %d bytes: want the part the buffers took", n)
	}
}

// TestRawWritesToAGoneClient: writes to a client that has gone fail with
// the send's error (EPIPE or ECONNRESET) as a write net.OpError.
func TestRawWritesToAGoneClient(t *testing.T) {
	server, client := tcpPair(t)
	client.Close()
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = server.Write([]byte("data: x\n\n"))
		time.Sleep(time.Millisecond)
	}
	if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("writing to a closed peer: %v, want EPIPE or ECONNRESET", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "write" {
		t.Fatalf("error %v is not a write net.OpError", err)
	}
}

// TestRawWritesAfterClose: a write on a closed connection fails as a plain
// one does (net.ErrClosed), without touching the descriptor.
func TestRawWritesAfterClose(t *testing.T) {
	server, _ := tcpPair(t)
	server.(*countedConn).Conn.Close()
	if _, err := server.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after close: %v, want net.ErrClosed", err)
	}
}

// TestRawWritesLeaveOtherConns: only TCP connections are wrapped.
func TestRawWritesLeaveOtherConns(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := rawWrites(a); got != a {
		t.Fatalf("a pipe came back as %T", got)
	}
}
