package client

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// readLog is a wire server's own log of when it read each request.
type readLog struct {
	mu   sync.Mutex
	read []time.Time
}

func (l *readLog) server(t *testing.T) *wireServer {
	return newWireServer(t, func(_ *http.Request, _ []byte, w io.Writer) bool {
		l.mu.Lock()
		l.read = append(l.read, time.Now())
		l.mu.Unlock()
		streamed(w, "")
		return true
	})
}

func (l *readLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.read)
}

// TestHeldRequestGoesWithItsWrite: a held request, by the client's own
// HTTP/1.1 and by net/http's transport alike, reaches the server only
// after its holder makes the write; it is marked sent then, and its
// upload does not count the wait.
func TestHeldRequestGoesWithItsWrite(t *testing.T) {
	for _, transport := range []bool{false, true} {
		var log readLog
		srv := log.server(t)
		clock := record.NewClock()
		c := newClient(t, srv.url, func(cfg *HTTPConfig) { cfg.Clock = clock })
		if transport {
			c.h1 = nil
		}
		c.OpenConnections(context.Background(), 2)
		var writeAt time.Time
		var readBefore int
		holds := 0
		req := &Request{Model: "m", Prompt: "hi", MaxTokens: 4, Hold: func(write func()) bool {
			holds++
			if write == nil {
				t.Error("a request with a connection opened for it was not held")
				return true
			}
			// the server has had every chance to read a request sent
			// early: a second request on another connection was read
			var other record.Record
			c2 := newClient(t, srv.url, nil)
			c2.Do(context.Background(), &Request{Model: "m", Prompt: "other", MaxTokens: 4}, &other)
			readBefore = log.count() - 1
			writeAt = time.Now()
			write()
			return true
		}}
		var rec record.Record
		c.Do(context.Background(), req, &rec)
		if !rec.OK() {
			t.Fatalf("transport %v: request failed: %+v", transport, rec.Error)
		}
		if holds != 1 || readBefore != 0 {
			t.Fatalf("transport %v: held %d times, the server read %d requests before the write; want 1 and 0", transport, holds, readBefore)
		}
		log.mu.Lock()
		readAt := log.read[1]
		log.mu.Unlock()
		sent := time.Unix(0, rec.T0+rec.Sent)
		if sent.Before(writeAt) || sent.After(readAt) {
			t.Errorf("transport %v: marked sent %v after the write was made and %v before the server read it; want both >= 0",
				transport, sent.Sub(writeAt), readAt.Sub(sent))
		}
		if !transport && time.Duration(rec.Upload) > sent.Sub(writeAt) {
			t.Errorf("upload %v counts the wait before the write (%v from it to the send)", time.Duration(rec.Upload), sent.Sub(writeAt))
		}
	}
}

// TestHeldRequestAbandoned: a request whose holder gives it up is never
// sent and is recorded as its context's end.
func TestHeldRequestAbandoned(t *testing.T) {
	for _, transport := range []bool{false, true} {
		var log readLog
		srv := log.server(t)
		c := newClient(t, srv.url, nil)
		if transport {
			c.h1 = nil
		}
		c.OpenConnections(context.Background(), 2)
		ctx, cancel := context.WithCancel(context.Background())
		var rec record.Record
		c.Do(ctx, &Request{Model: "m", Prompt: "hi", MaxTokens: 4, Hold: func(func()) bool {
			cancel()
			return false
		}}, &rec)
		if rec.OK() || rec.Error.Kind != record.KindCanceled {
			t.Errorf("transport %v: record %+v, want cancelled", transport, rec.Error)
		}
		// a request after it on the same client is read first by the
		// server: nothing of the first went out
		var next record.Record
		c.Do(context.Background(), &Request{Model: "m", Prompt: "next", MaxTokens: 4}, &next)
		if !next.OK() || log.count() != 1 {
			t.Errorf("transport %v: the server read %d requests, want the one after the abandoned one only", transport, log.count())
		}
	}
}

// TestUploadOrDialGoesAlone: a request whose send may wait on the
// server is not held: a body past what a send buffer takes unread, or a
// connection to dial (none was opened before). Hold is told so (nil) and
// the request goes by itself.
func TestUploadOrDialGoesAlone(t *testing.T) {
	for name, c := range map[string]struct {
		prompt string
		opened int
	}{
		"upload": {strings.Repeat("x", maxHeldBody), 2},
		"dial":   {"hi", 0},
	} {
		var log readLog
		srv := log.server(t)
		cl := newClient(t, srv.url, nil)
		cl.OpenConnections(context.Background(), c.opened)
		var got []bool
		var rec record.Record
		cl.Do(context.Background(), &Request{Model: "m", Prompt: c.prompt, MaxTokens: 4, Hold: func(write func()) bool {
			got = append(got, write != nil)
			if write != nil {
				write()
			}
			return true
		}}, &rec)
		if !rec.OK() || len(got) != 1 || got[0] {
			t.Errorf("%s: held with a write %v (want once, without), record %+v", name, got, rec.Error)
		}
	}
}
