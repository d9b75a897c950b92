package httpserve

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStalledReadersAreCut: a client that sends a request and never
// reads its stream held the handler (blocked in a write) and the
// connection for ever. Now the write fails once it has waited writeStall,
// the connection closes, and the request's context ends; a client that
// reads, however slowly, is never cut.
func TestStalledReadersAreCut(t *testing.T) {
	writeStall = 300 * time.Millisecond
	defer func() { writeStall = WriteStall }()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		wrote    int
		err      error
		canceled bool
	}
	ended := make(chan outcome, 10)
	chunk := strings.Repeat("x", 16<<10)
	srv := Server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := 1 << 30
		if r.URL.Path == "/slow" {
			limit = 16 // a slow reader's stream: ends by itself
		}
		var o outcome
		for ; o.wrote < limit; o.wrote++ {
			if _, o.err = fmt.Fprint(w, chunk); o.err != nil {
				break
			}
			w.(http.Flusher).Flush()
			if r.URL.Path == "/slow" {
				time.Sleep(writeStall / 4)
			}
		}
		if o.err != nil {
			select {
			case <-r.Context().Done():
				o.canceled = true
			case <-time.After(time.Minute): // a bound on a hang
			}
		}
		ended <- o
	}))
	go srv.Serve(ln)
	defer srv.Close()

	stalled, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	fmt.Fprintf(stalled, "GET /stalled HTTP/1.1\r\nHost: x\r\n\r\n") // and never a read
	select {
	case o := <-ended:
		if o.err == nil || !o.canceled {
			t.Errorf("stalled client: %d chunks written, write error %v, context ended %v", o.wrote, o.err, o.canceled)
		}
	case <-time.After(time.Minute): // a bound on a hang, far past writeStall
		t.Fatal("the handler writing to a client that never reads is still blocked after a minute")
	}

	// a reader slower than the server, but reading: 16 chunks, each a
	// quarter of writeStall apart, a stream four times longer than a
	// deadline
	resp, err := http.Get("http://" + ln.Addr().String() + "/slow")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4<<10)
	total := 0
	for {
		n, err := resp.Body.Read(buf)
		total += n
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	if o := <-ended; o.err != nil || o.wrote != 16 || total != 16*len(chunk) {
		t.Errorf("slow reader: %d chunks written, %d bytes read, error %v", o.wrote, total, o.err)
	}
}
