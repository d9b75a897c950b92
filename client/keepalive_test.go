package client

import (
	"context"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// TestRetriesAConnectionClosedBeforeAnswering: a request sent on a kept-
// alive connection that the server then closes without answering goes
// out again on a fresh one, is recorded as a retry, and is never a
// failure of the server's.
func TestRetriesAConnectionClosedBeforeAnswering(t *testing.T) {
	srv, err := scripted.NewClosing()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := newClient(t, srv.URL, func(cfg *HTTPConfig) { cfg.Concurrency = 1 })
	const n = 20
	retried := 0
	for i := range n {
		var rec record.Record
		c.Do(context.Background(), &Request{Model: "m", Prompt: "hi", MaxTokens: 2}, &rec)
		if !rec.OK() {
			t.Fatalf("request %d failed: %+v", i, rec.Error)
		}
		if rec.OutputTokens != 2 || rec.Sent <= 0 || rec.First < rec.Sent {
			t.Errorf("request %d: %d tokens, sent %d, first %d", i, rec.OutputTokens, rec.Sent, rec.First)
		}
		retried += rec.Retries
	}
	c.Close()
	srv.Close()
	// every request after the first went out on the connection its
	// predecessor used, which the server dropped
	if srv.Answered() != n || srv.Dropped() != n-1 || retried != n-1 {
		t.Errorf("server answered %d and dropped %d; client recorded %d retries; want %d, %d, %d", srv.Answered(), srv.Dropped(), retried, n, n-1, n-1)
	}
}
