package monitor

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/record"
)

// rawUpstream answers every request with raw bytes on the connection, so
// that bodies can break in ways net/http would not write.
func rawUpstream(t *testing.T, reply func(c net.Conn)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// the request read whole: closing a connection with unread bytes
		// would reset it, whatever the case meant to send
		_, _ = io.Copy(io.Discard, r.Body)
		c, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		_ = buf.Flush()
		reply(c)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

const sseHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"

// TestProxyKeepsFailureCauses: a bad chunk encoding, a reset and a body
// cut inside a chunk were all "stream ended without [DONE]" in proxy
// records; a body shorter than its Content-Length disagreed with run. The
// proxy now records what run records for the same response.
func TestProxyKeepsFailureCauses(t *testing.T) {
	event := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
	cases := []struct {
		name   string
		stream bool
		reply  func(c net.Conn)
	}{
		{"bad chunk encoding", true, func(c net.Conn) {
			fmt.Fprintf(c, sseHead+"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\nzz\r\n", len(event), event)
		}},
		{"reset mid-stream", true, func(c net.Conn) {
			fmt.Fprintf(c, sseHead+"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(event), event)
			c.(*net.TCPConn).SetLinger(0) // RST, not FIN
		}},
		{"cut inside a chunk", true, func(c net.Conn) {
			fmt.Fprintf(c, sseHead+"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s", len(event)+50, event)
		}},
		{"shorter than its Content-Length", false, func(c net.Conn) {
			body := `{"choices":[{"message":{"content":"a"}}]`
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+100, body)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := rawUpstream(t, c.reply)
			cl, err := client.NewHTTP(client.HTTPConfig{URL: up, Stream: c.stream, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			var direct record.Record
			cl.Do(context.Background(), &client.Request{Model: "m", Prompt: "p", MaxTokens: 4}, &direct)

			proxy, buf, _ := proxyTo(t, up)
			body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"p"}],"max_tokens":4,"stream":%v}`, c.stream)
			if resp, err := http.Post(proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader(body)); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			recs := records(t, buf, 1)
			if len(recs) != 1 || recs[0].Error == nil || direct.Error == nil {
				t.Fatalf("proxy records %+v, run's %+v", recs, direct.Error)
			}
			got, want := recs[0].Error, direct.Error
			// the two connections differ only in their client ports
			ports := regexp.MustCompile(`127\.0\.0\.1:\d+`)
			if got.Kind != want.Kind || ports.ReplaceAllString(got.Message, "") != ports.ReplaceAllString(want.Message, "") {
				t.Errorf("proxy recorded %s %q, run %s %q", got.Kind, got.Message, want.Kind, want.Message)
			}
		})
	}
}
