package client

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// connCounter is a server that counts the connections it accepted and
// those that closed, as the server saw them.
type connCounter struct {
	opened, closed atomic.Int64
	mu             sync.Mutex
	conns          []net.Conn
}

func (cc *connCounter) server(t *testing.T) string {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, chunk("hi")+"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			cc.opened.Add(1)
			cc.mu.Lock()
			cc.conns = append(cc.conns, c)
			cc.mu.Unlock()
		case http.StateClosed, http.StateHijacked:
			cc.closed.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestConnectionsOpenedBeforeAStep: the connections opened before a step
// are the ones its first requests go out on (the server accepts no more
// for them); a client that has dialled opens none again; those the step
// left unused are closed.
func TestConnectionsOpenedBeforeAStep(t *testing.T) {
	var cc connCounter
	c := newClient(t, cc.server(t), func(cfg *HTTPConfig) { cfg.Concurrency = 8 })
	if n, _ := c.OpenConnections(context.Background(), 8); n != 8 {
		t.Fatalf("opened %d, want 8", n)
	}
	var wg sync.WaitGroup
	recs := make([]record.Record, 6)
	for i := range recs {
		wg.Go(func() { c.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 4}, &recs[i]) })
	}
	wg.Wait()
	for i, r := range recs {
		if !r.OK() {
			t.Fatalf("request %d: %v", i, r.Error)
		}
	}
	if got := cc.opened.Load(); got != 8 {
		t.Errorf("the server accepted %d connections; want the 8 opened before", got)
	}
	if n, _ := c.OpenConnections(context.Background(), 8); n != 0 {
		t.Errorf("a client that has dialled opened %d more", n)
	}
	c.CloseUnused()
	waitFor(func() bool { return cc.closed.Load() >= 2 })
}

// TestClosedReadyConnectionNotUsed: a connection the server closed while
// it waited is dropped, and the request goes out on a new one.
func TestClosedReadyConnectionNotUsed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a closed connection is told from an open one on Linux only")
	}
	var cc connCounter
	c := newClient(t, cc.server(t), nil)
	if n, _ := c.OpenConnections(context.Background(), 2); n != 2 {
		t.Fatalf("opened %d, want 2", n)
	}
	waitFor(func() bool { return cc.opened.Load() == 2 })
	cc.mu.Lock()
	for _, conn := range cc.conns {
		conn.Close()
	}
	cc.mu.Unlock()
	waitFor(func() bool {
		c.ready.conns.mu.Lock()
		defer c.ready.conns.mu.Unlock()
		for _, conn := range c.ready.conns.conns {
			if !closedByPeer(conn) {
				return false
			}
		}
		return true
	})
	var rec record.Record
	c.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 4}, &rec)
	if !rec.OK() || cc.opened.Load() != 3 {
		t.Errorf("record %v, %d connections accepted; want a success on a third", rec.Error, cc.opened.Load())
	}
}

// waitFor waits until cond holds, what the server and the client see
// deciding it: a case that never holds is the test binary's timeout.
func waitFor(cond func() bool) {
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}

// TestOpenConnectionsRefused: a server that refuses opens nothing (the
// first refusal stops the rest), and the step's request fails as a
// connect failure, as it did without.
func TestOpenConnectionsRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := newClient(t, "http://"+addr, nil)
	if n, _ := c.OpenConnections(context.Background(), 1000); n != 0 {
		t.Fatalf("opened %d to a closed port", n)
	}
	var rec record.Record
	c.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 4}, &rec)
	if rec.Error == nil || rec.Error.Kind != record.KindConnect {
		t.Errorf("request to a closed port: %+v", rec.Error)
	}
}

// TestOpenConnectionsEveryAPI: opening connections rehearses a request of
// each API, one whose body is the audio a request brings too.
func TestOpenConnectionsEveryAPI(t *testing.T) {
	var cc connCounter
	url := cc.server(t)
	for _, api := range APIs {
		c := newClient(t, url, func(cfg *HTTPConfig) { cfg.API = api })
		if n, _ := c.OpenConnections(context.Background(), 4); n != 4 {
			t.Errorf("%s: opened %d, want 4", api, n)
		}
	}
}
