package scripted

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
)

// Closing is a server that answers one request a connection as
// llama.cpp's server does: a whole stream of two tokens whose headers say
// keep-alive, then, when the next request arrives on that connection, a
// close without a byte of answer.
type Closing struct {
	URL      string
	ln       net.Listener
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]bool
	answered int
	dropped  int
}

// NewClosing starts a Closing server on loopback.
func NewClosing() (*Closing, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Closing{URL: "http://" + ln.Addr().String(), ln: ln, conns: map[net.Conn]bool{}}
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns[conn] = true
			s.mu.Unlock()
			s.wg.Go(func() { s.serve(conn) })
		}
	})
	return s, nil
}

func (s *Closing) serve(conn net.Conn) {
	defer func() {
		conn.Close()
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
	}()
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	io.Copy(io.Discard, req.Body)
	body := `data: {"choices":[{"delta":{"content":"a"}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"content":"b"}}]}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}` + "\n\ndata: [DONE]\n\n"
	fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: keep-alive\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	s.mu.Lock()
	s.answered++
	s.mu.Unlock()
	if _, err := br.Peek(1); err == nil { // the next request came: gone without a word
		s.mu.Lock()
		s.dropped++
		s.mu.Unlock()
	}
}

// Answered and Dropped count the requests answered and those dropped
// unanswered.
func (s *Closing) Answered() int { s.mu.Lock(); defer s.mu.Unlock(); return s.answered }

// Dropped: see Answered.
func (s *Closing) Dropped() int { s.mu.Lock(); defer s.mu.Unlock(); return s.dropped }

// Close stops the server, closes the connections it holds and waits for
// their goroutines to end.
func (s *Closing) Close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
