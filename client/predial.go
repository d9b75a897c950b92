package client

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Connections opened before a step. A closed loop of thousands of users
// sends its first requests all in one instant; dialling a connection for
// each there made the first 256 requests of 256 streams go out 53 ms late
// at the median, against 0.016 ms for the ones after, on connections
// already open, and while the client dialled it left the streams already
// running unread.

// readyConns are connections opened before a step, which the transport's
// dialer hands out before it dials.
type readyConns struct {
	addr   string // host:port the transport dials for the endpoint; "" when a proxy stands between
	conns  connStack
	dialed atomic.Bool // the transport has asked for a connection: its pool is not empty
}

// dialAddr is the host and port the transport dials for endpoint, or ""
// when the environment routes it through a proxy (the transport dials the
// proxy, not the server).
func dialAddr(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	if p, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || p != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// dial is the transport's DialContext: a connection opened before the
// step while there is one the server has not closed, else a new one.
func (r *readyConns) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	r.dialed.Store(true)
	if addr == r.addr {
		if c := r.conns.pop(); c != nil {
			return c, nil
		}
	}
	return DialStamped(ctx, network, addr)
}

// OpenConnections dials n connections to the server (64 at a time) for
// the requests a step sends in its first instant, rehearses their
// requests' memory (rehearse), and says how many it opened and how long
// that all took: time no request's figures include. A client that has
// dialled before opens none: its pool holds what its last step used.
func (c *HTTP) OpenConnections(ctx context.Context, n int) (opened int, took time.Duration) {
	r := c.ready
	if n < 2 || r.addr == "" || r.dialed.Load() || r.conns.len() > 0 {
		return 0, 0
	}
	start := time.Now()
	// the first dial that fails stops the rest: a server that refuses or
	// a host that never answers costs one dial's wait, not n/64 of them,
	// and the step's requests meet it as they would have
	ctx, giveUp := context.WithCancel(ctx)
	defer giveUp()
	conns := make([]net.Conn, n)
	slots := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i := range conns {
		slots <- struct{}{}
		if ctx.Err() != nil {
			<-slots
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			conn, err := DialStamped(ctx, "tcp", r.addr)
			if err != nil {
				giveUp()
				return
			}
			conns[i] = conn
		})
	}
	wg.Wait()
	for _, conn := range conns {
		if conn != nil {
			r.conns.push(conn, n)
			opened++
		}
	}
	rehearse(opened, func() any {
		if protocolOf(c.cfg.API).transcribes {
			return nil // its body is the audio a request brings
		}
		body, _, _ := c.body(&Request{Model: "rehearsal", Prompt: "a prompt", MaxTokens: 16})
		return body
	})
	return opened, time.Since(start)
}

// rehearse takes, n at once, the memory n requests' first moments take
// (a goroutine's stack at a request's depth, a body built, the buffers an
// answer is read through) and gives it back, so that the step's first
// wave finds it the runtime's own: fresh memory (the kernel's page
// faults, stacks grown into new spans) cost 2,048 requests due at once 98
// us of one core each, against 40-48 us once the process had held it
// before. While the n are held at depth it collects once: the runtime
// starts new goroutines with the average stack it scanned at its last
// collection, so the step's request goroutines start at a request's
// depth instead of growing (copying) their stacks two or three times
// each in the first wave.
func rehearse(n int, buildBody func() any) {
	var held, release sync.WaitGroup
	held.Add(n)
	release.Add(1)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			br := h1Readers.Get().(*bufio.Reader)
			sse := readers.Get().(*sseReader)
			touchPage(br)
			touchPage(sse.br)
			body := buildBody() // held with the rest: the heap grows to n of them
			deepen(requestStackDepth, func() {
				held.Done()
				release.Wait()
			})
			runtime.KeepAlive(body)
			h1Readers.Put(br)
			readers.Put(sse)
		})
	}
	held.Wait()
	runtime.GC()
	release.Done()
	wg.Wait()
}

// touchPage writes the first page of br's buffer, where an answer's reads
// land: a buffer only allocated is memory the kernel has not mapped yet,
// and the first read into it took the page fault inside the first wave.
func touchPage(br *bufio.Reader) {
	br.Reset(pageWriter{})
	br.Peek(1)
	br.Reset(nil)
}

// pageWriter is a reader that writes zeros to up to a page of what it is
// given.
type pageWriter struct{}

func (pageWriter) Read(p []byte) (int, error) {
	n := min(len(p), 4096)
	clear(p[:n])
	return n, nil
}

// requestStackDepth is the stack, in KiB, rehearse holds each goroutine
// at while it collects, which sets the stack the step's goroutines start
// with (8 KiB from 6). 2,048 requests due at once, their first tokens 3 s
// away so that the wave held starts alone (the scripted server, three or
// four alternating runs each), went out within 71-74 ms at p99
// with 6, 70-75 with 12, 74-82 with 4 and 100-124 with 2; at 32, 39 and
// 32 KB a stream for 2, 12 and 6 (16 held without the collection: 85-88
// ms, 39 KB).
const requestStackDepth = 6

// deepen calls f with the goroutine's stack about kib KiB deeper.
func deepen(kib int, f func()) byte {
	var frame [1000]byte
	frame[kib%len(frame)] = byte(kib)
	if kib <= 1 {
		f()
		return frame[0]
	}
	return deepen(kib-1, f) + frame[kib%len(frame)]
}

// CloseUnused closes the connections opened before a step that the step
// did not take.
func (c *HTTP) CloseUnused() {
	c.ready.conns.closeAll()
}
