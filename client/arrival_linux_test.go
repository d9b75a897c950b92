package client

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// TestArrivalConnStampsArrival: bytes that wait in the socket are stamped
// when they arrived, before the read that takes them.
func TestArrivalConnStampsArrival(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := StampArrivals(raw)
	defer c.Close()
	stamper, ok := c.(arrivalStamper)
	if !ok {
		t.Fatal("a TCP connection on Linux is not wrapped")
	}
	if _, ok := stamper.Arrived(); ok {
		t.Error("an arrival before any bytes")
	}
	srv := <-accepted
	defer srv.Close()

	// Until the kernel has turned stamping on (it defers that after the
	// first socket asks), reads carry no stamp: exchange bytes until one
	// does, or the kernel never stamps.
	buf := make([]byte, 16)
	for i := 0; ; i++ {
		srv.Write([]byte("x"))
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		if c.(*arrivalConn).stamped.Load() {
			break
		}
		if i == 1000 {
			t.Fatal("no kernel receive stamp after 1,000 reads")
		}
		time.Sleep(time.Millisecond)
	}

	beforeWrite := time.Now()
	if _, err := srv.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	beforeRead := time.Now()
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	at, ok := stamper.Arrived()
	// The bytes entered the kernel during the write; the read came 200 ms
	// later. Half of that is left for a loaded machine.
	if !ok || at.Before(beforeWrite.Add(-time.Millisecond)) || at.After(beforeRead.Add(-100*time.Millisecond)) {
		t.Errorf("arrival %v after the write began, %v before the read: want within the write, not at the read",
			at.Sub(beforeWrite), beforeRead.Sub(at))
	}

	// a plain connection's behaviour otherwise: deadlines, EOF
	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Errorf("empty read: %d, %v", n, err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	var ne net.Error
	if _, err := c.Read(buf); !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("deadline: %v", err)
	}
	c.SetReadDeadline(time.Time{})
	srv.Close()
	if _, err := c.Read(buf); err != io.EOF {
		t.Errorf("after the peer closed: %v, want EOF", err)
	}
}

// TestStampsSurviveABusyClient: while the client is busy with the first
// token (a slow OnToken), the next ones arrive; their stamps are the
// server's send times, not the end of the client's work.
func TestStampsSurviveABusyClient(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: 2 * time.Millisecond, Tokens: 3})
	defer srv.Close()
	const busy = 200 * time.Millisecond
	first := true
	c := newClient(t, srv.URL, func(cfg *HTTPConfig) {
		cfg.OnToken = func(int64, int, string) {
			if first {
				first = false
				time.Sleep(busy)
			}
		}
	})
	var rec record.Record
	c.Do(context.Background(), &Request{Model: "m", MaxTokens: 3}, &rec)
	if rec.Error != nil || len(rec.Chunks) != 3 {
		t.Fatalf("record: %+v", rec)
	}
	sent, ok := srv.Log(rec.ResponseID)
	if !ok || len(sent.Events) != 3 {
		t.Fatalf("server log: %+v", sent)
	}
	clock := c.cfg.Clock
	for i := 1; i < 3; i++ {
		stamp := clock.Time(rec.Sent + rec.Chunks[i].At)
		late := stamp.Sub(sent.Events[i])
		// never before the server wrote it (less the wall clock's slew
		// over the wait), and far less late than the client's busy spell
		if late < -time.Millisecond || late > busy/2 {
			t.Errorf("token %d stamped %v after the server sent it (the client was busy %v)", i, late, busy)
		}
	}
}
