// Package httpserve holds what tpsbench's own servers (the embedded
// engine and the measuring proxy) need against clients that do not play
// fair: timeouts on headers, bodies, idle connections and stalled
// writes, a cap on open connections, and one check of bearer keys.
package httpserve

import (
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// HeaderTimeout and BodyTimeout bound how long a client may take to
	// send a request's headers and its body; slow clients are cut off
	// rather than holding a connection (and a goroutine) for ever.
	HeaderTimeout = 10 * time.Second
	BodyTimeout   = 10 * time.Second
	// IdleTimeout closes keep-alive connections left unused.
	IdleTimeout = 2 * time.Minute
	// MaxConns bounds the connections open at once; past it a new one is
	// answered 503 and closed, so a flood cannot exhaust descriptors.
	MaxConns = 4096
)

// bodyTimeout is BodyTimeout, shortened by tests.
var bodyTimeout = BodyTimeout

// Server is an http.Server for h with the timeouts above. (Its
// ReadTimeout stays unset: it would also end the background read that
// notices a client leaving a long stream. Bodies are bounded by ReadBody.)
func Server(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: HeaderTimeout, IdleTimeout: IdleTimeout}
}

// Listen listens on addr (TCP) with at most MaxConns connections open.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return Limit(ln, MaxConns), nil
}

// Limit caps ln at max open connections.
func Limit(ln net.Listener, max int) net.Listener {
	return &limitListener{Listener: ln, max: int64(max)}
}

type limitListener struct {
	net.Listener
	max  int64
	open atomic.Int64
}

// busy is what a connection past the cap is told.
var busy = func() string {
	body := `{"error":{"message":"too many open connections","type":"server_busy","code":503}}`
	return fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}()

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			go refuse(c)
			continue
		}
		return &countedConn{Conn: &stallConn{Conn: rawWrites(c)}, l: l}, nil
	}
}

// refuse answers 503 without reading the request (a busy client may never
// send one) and closes.
func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = io.WriteString(c, busy)
	_ = c.Close()
}

type countedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// ReadBody reads r's body, at most limit bytes, within BodyTimeout. On an
// error the connection is closed after the reply, and its read deadline
// stays passed, so the server never waits on the rest of such a body.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	rc := http.NewResponseController(w)
	// not every ResponseWriter takes deadlines (a test recorder does not)
	deadline := rc.SetReadDeadline(time.Now().Add(bodyTimeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		w.Header().Set("Connection", "close")
		return nil, err
	}
	if deadline {
		_ = rc.SetReadDeadline(time.Time{}) // a long stream's reply may follow
	}
	return body, nil
}

// BearerOK reports whether r carries key as a bearer token. The scheme's
// case does not matter (RFC 7235); the key is compared in constant time.
func BearerOK(r *http.Request, key string) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimLeft(token, " ")), []byte(key)) == 1
}

// Shorten bounds a client's string (a model name) for echoing in errors
// and storing in records: at most n bytes, valid UTF-8, marked as cut.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return strings.ToValidUTF8(s, "?")
	}
	return strings.ToValidUTF8(s[:n], "?") + fmt.Sprintf("... (%d bytes)", len(s))
}
