package httpserve

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestBearerOK(t *testing.T) {
	cases := []struct {
		header string
		ok     bool
	}{
		{"Bearer sk-1", true},
		{"bearer sk-1", true}, // RFC 7235: the scheme is case-insensitive
		{"BEARER sk-1", true},
		{"Bearer  sk-1", true},
		{"Bearer sk-2", false},
		{"Bearer", false},
		{"Basic sk-1", false},
		{"sk-1", false},
		{"", false},
	}
	for _, c := range cases {
		r, _ := http.NewRequest("GET", "/", nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if got := BearerOK(r, "sk-1"); got != c.ok {
			t.Errorf("%q: %v, want %v", c.header, got, c.ok)
		}
	}
}

func TestShorten(t *testing.T) {
	if got := Shorten("m", 8); got != "m" {
		t.Errorf("short name changed: %q", got)
	}
	long := strings.Repeat("é", 3<<20) // 6 MB
	got := Shorten(long, 256)
	if len(got) > 300 || !strings.HasSuffix(got, "(6291456 bytes)") || !strings.HasPrefix(got, "éé") {
		t.Errorf("shortened to %d bytes: %q", len(got), got[len(got)-40:])
	}
}

// serveSlow runs a server whose one route reads the body with ReadBody
// and reports the outcome on got.
func serveSlow(t *testing.T, ln net.Listener) chan error {
	t.Helper()
	got := make(chan error, 1000)
	srv := Server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := ReadBody(w, r, 1<<20)
		got <- err
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	}))
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return got
}

// TestSlowBodiesAreCut: 500 connections that sent headers and part of a
// body were all still open 15 s later. A body now has BodyTimeout to
// arrive; after it the request fails and the connection closes.
func TestSlowBodiesAreCut(t *testing.T) {
	bodyTimeout = 300 * time.Millisecond
	defer func() { bodyTimeout = BodyTimeout }()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := serveSlow(t, ln)
	const n = 50
	var conns []net.Conn
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"prompt\":")
		conns = append(conns, c)
	}
	for i := 0; i < n; i++ {
		select {
		case err := <-got:
			if err == nil {
				t.Fatal("a body that never came was read")
			}
		case <-time.After(time.Minute): // a bound on a hang, far past the 300 ms timeout
			t.Fatalf("%d of %d slow bodies still being read after a minute", n-i, n)
		}
	}
	// every connection is closed by the server: reading it ends
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatalf("connection not closed by the server: %v", err)
		}
	}
}

// TestConnectionCap: past the cap a connection is answered 503 and closed;
// once one closes, a new one is served.
func TestConnectionCap(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Limit(inner, 3)
	srv := Server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	go srv.Serve(ln)
	defer srv.Close()
	var held []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// a whole request answered: the server holds the connection open
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
		held = append(held, c)
	}
	get := func() int {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(); code != 503 {
		t.Fatalf("a fourth connection: %d, want 503", code)
	}
	held[0].Close()
	// the server notices the close on its own time: ask until it has
	for deadline := time.Now().Add(time.Minute); ; {
		if code := get(); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no connection served after one of the three closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
