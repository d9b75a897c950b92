package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A request to a plain http:// server with no proxy between goes out over
// the client's own HTTP/1.1: a request line and headers built once, the
// body written with them in one write from the request's goroutine, the
// answer read on that same goroutine. net/http's transport spent 200 us
// of one core on each request's first use of a connection (a reading
// and a writing goroutine a connection, whose stacks grow, and 128 KiB
// of buffers), and 2,048 requests due at once went out over 400 ms while
// the streams already running waited to be read. The answer's status
// line, headers and body framing are still net/http's own parser's.

// h1 sends requests to one endpoint over HTTP/1.1 connections it keeps.
type h1 struct {
	addr    string // host:port dialled
	head    []byte // request line and the headers every request carries
	ready   *readyConns
	maxIdle int
	idle    connStack // connections whose last answer was read whole
}

// maxResponseHead bounds an answer's status line and headers, as
// net/http's transport does by default.
const maxResponseHead = 1 << 20

// h1Attempts bounds the sends of one request: each after the first
// follows a kept-alive connection the server closed without answering.
const h1Attempts = 16

// newH1 returns the HTTP/1.1 sender of requests to endpoint, or nil where
// net/http's transport is needed: https, or a proxy between.
func newH1(endpoint string, ready *readyConns, headers http.Header, maxIdle int) *h1 {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" || ready.addr == "" {
		return nil
	}
	h := http.Header{}
	for k, vs := range headers {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "Transfer-Encoding", "Trailer", "Content-Type":
			continue // the request's own, as net/http writes them
		}
		h[http.CanonicalHeaderKey(k)] = append(h[http.CanonicalHeaderKey(k)], vs...)
	}
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", "tpsbench")
	}
	if u.User != nil && h.Get("Authorization") == "" {
		pass, _ := u.User.Password()
		r := &http.Request{Header: h}
		r.SetBasicAuth(u.User.Username(), pass)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), u.Host)
	_ = h.Write(&b) // a bytes.Buffer takes every write
	return &h1{addr: ready.addr, head: b.Bytes(), ready: ready, maxIdle: maxIdle}
}

// checkHeaders refuses a header no server could be sent: a name that is
// not an HTTP token, a value with a control character.
func checkHeaders(h http.Header) error {
	for k, vs := range h {
		if k == "" || !isToken(k) {
			return fmt.Errorf("header name %q: want letters, digits and !#$%%&'*+-.^_`|~ only", k)
		}
		for _, v := range vs {
			for _, r := range []byte(v) {
				if r < ' ' && r != '\t' || r == 0x7f {
					return fmt.Errorf("header %s: its value holds a control character (%q)", k, r)
				}
			}
		}
	}
	return nil
}

func isToken(s string) bool {
	for _, r := range []byte(s) {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", r) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// conn returns a connection: the newest kept alive the server has not
// closed, else one opened before the step, else a new one. reused says
// it was not dialled for this request.
func (h *h1) conn(ctx context.Context, tr *sendTrace) (c net.Conn, reused bool, err error) {
	tr.askedConn.CompareAndSwap(0, tr.clock.Now())
	if c = h.idle.pop(); c != nil {
		return c, true, nil
	}
	h.ready.dialed.Store(true)
	if c = h.ready.conns.pop(); c != nil {
		return c, true, nil
	}
	// a dial takes what the server makes it take (a full backlog: a
	// second and more): a request that needs one is no one's to wait for
	tr.held(nil)
	c, err = DialStamped(httptrace.WithClientTrace(ctx, tr.dialHooks()), "tcp", h.addr)
	return c, false, err
}

// keep puts c back for the next request, or closes it past the pool's size.
func (h *h1) keep(c net.Conn) {
	if !h.idle.push(c, h.maxIdle) {
		c.Close()
	}
}

// h1Exchange is one request's answer on its connection.
type h1Exchange struct {
	h      *h1
	conn   net.Conn
	src    headCap
	br     *bufio.Reader
	resp   *http.Response
	body   eofReader
	cancel func() bool // stops the context's unblocking of conn
}

// h1Readers recycles the buffered readers answers are read through.
var h1Readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

// headCap reads a connection, refusing more than maxResponseHead bytes
// while the answer's head is read; got counts what came.
type headCap struct {
	r       io.Reader
	got     int64
	limited bool
	tr      *sendTrace // stamped with the first byte
}

var errHeadTooLong = fmt.Errorf("answer's status line and headers longer than %d bytes", maxResponseHead)

func (c *headCap) Read(p []byte) (int, error) {
	if c.limited {
		if c.got >= maxResponseHead {
			return 0, errHeadTooLong
		}
		p = p[:min(int64(len(p)), maxResponseHead-c.got)]
	}
	n, err := c.r.Read(p)
	if c.got == 0 && n > 0 && c.tr != nil {
		c.tr.arrivedFirst()
	}
	c.got += int64(n)
	return n, err
}

// eofReader is an answer's body that says whether it was read to its end.
type eofReader struct {
	r   io.Reader
	eof bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.eof = true
	}
	return n, err
}

// roundTrip sends head+body and reads the answer's head. tr learns when
// the connection was in hand, when the request went out, on how many
// connections, and how the connection stamps arrivals. A connection kept
// alive that the server closed before a byte of an answer came is left
// for another, as net/http does for a request that may be sent again.
func (h *h1) roundTrip(ctx context.Context, tr *sendTrace, contentType string, body []byte) (*h1Exchange, error) {
	tail := make([]byte, 0, 80)
	tail = append(tail, "Content-Type: "...)
	tail = append(tail, contentType...)
	tail = append(tail, "\r\nContent-Length: "...)
	tail = strconv.AppendInt(tail, int64(len(body)), 10)
	tail = append(tail, "\r\n\r\n"...)
	for attempt := 1; ; attempt++ {
		conn, reused, err := h.conn(ctx, tr)
		if err != nil {
			return nil, err
		}
		tr.conns.Add(1)
		tr.wroteAt.Store(0)
		tr.gotConnection(tr.clock.Now(), reused)
		if f := ArrivalOf(conn); f != nil {
			tr.arrival.Store(&f)
		}
		x := &h1Exchange{h: h, conn: conn}
		x.cancel = context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
		err = h.write(conn, tr, tail, body)
		if err == nil || ctx.Err() == nil {
			// a server that stopped reading a request (413: too large)
			// has most often said why before it closed
			if herr := x.readHead(tr); herr == nil {
				return x, nil
			} else if err == nil {
				err = herr
			}
		}
		x.abandon()
		if !reused || x.src.got > 0 || ctx.Err() != nil || attempt == h1Attempts || !peerClosed(err) {
			return nil, err
		}
	}
}

// lastPiece is how much of a request goes out in its own write: the
// request is sent when that write begins.
const lastPiece = 1 << 10

// write sends the request and stamps when it went: the moment its last
// bytes were handed to the kernel, which a server on another core can
// read before the write returns. A request longer than lastPiece (media)
// goes in two writes, so the time its bulk took to go out is its upload,
// not its TTFT's. A shorter one goes in one write of one buffer laid out
// before it is due: a wave of 1,024 held requests went out within 8.8 ms
// at p99 against 9.9 when each was one writev of its three parts
// (medians of five alternating runs). A request held (Request.Hold) is
// sent by its holder.
func (h *h1) write(conn net.Conn, tr *sendTrace, tail, body []byte) error {
	if s, ok := conn.(interface{ NetConn() net.Conn }); ok {
		conn = s.NetConn() // the TCP connection itself takes a bulk's parts in one writev
	}
	if len(body) > maxHeldBody {
		tr.held(nil) // an upload may wait for the server's reads: it goes alone
	}
	var bulk net.Buffers
	var last []byte
	if len(body) > lastPiece {
		bulk = net.Buffers{h.head, tail, body[:len(body)-lastPiece]}
		last = body[len(body)-lastPiece:]
	} else {
		last = make([]byte, 0, len(h.head)+len(tail)+len(body))
		last = append(append(append(last, h.head...), tail...), body...)
	}
	held := tr.hold != nil
	var err error
	write := func() {
		if held {
			// the connection was in hand before the request was due:
			// its upload begins with its send
			tr.gotConn.Store(tr.clock.Now())
		}
		if bulk != nil {
			if _, err = bulk.WriteTo(conn); err != nil {
				return
			}
		}
		at := tr.clock.Now()
		if _, err = conn.Write(last); err == nil {
			tr.wroteAt.Store(at)
		}
	}
	if !tr.held(write) {
		return errNotSent
	}
	return err
}

// maxHeldBody bounds the body of a request its holder sends: a write
// this long goes into a connection's send buffer without waiting for the
// server to read, so that no request of a wave waits behind another's.
const maxHeldBody = 64 << 10

// errNotSent is a held request abandoned before its send.
var errNotSent = errors.New("request abandoned before it was sent")

// peerClosed says err is a connection's end: what a server that closed a
// kept-alive connection leaves a write or a read.
func peerClosed(err error) bool {
	var op *net.OpError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &op)
}

// readHead reads the answer's status line and headers, past any interim
// (1xx) answers.
func (x *h1Exchange) readHead(tr *sendTrace) error {
	x.src = headCap{r: x.conn, limited: true, tr: tr}
	x.br = h1Readers.Get().(*bufio.Reader)
	x.br.Reset(&x.src)
	post := &http.Request{Method: http.MethodPost}
	for interim := 0; ; interim++ {
		resp, err := http.ReadResponse(x.br, post)
		if err != nil {
			return err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols || interim == 5 {
			x.src.limited = false
			x.resp = resp
			x.body.r = resp.Body
			return nil
		}
	}
}

// done ends the exchange: its connection is kept for the next request
// when the answer was read whole and nothing else came, else closed.
func (x *h1Exchange) done() {
	clean := x.cancel() && x.body.eof && !x.resp.Close && x.br.Buffered() == 0
	if !clean {
		x.abandon()
		return
	}
	x.releaseReader()
	x.h.keep(x.conn)
}

// abandon closes the exchange's connection.
func (x *h1Exchange) abandon() {
	x.cancel()
	x.conn.Close()
	x.releaseReader()
}

// releaseReader returns the exchange's buffered reader to its pool.
func (x *h1Exchange) releaseReader() {
	if x.br != nil {
		x.br.Reset(nil)
		h1Readers.Put(x.br)
		x.br = nil
	}
}
