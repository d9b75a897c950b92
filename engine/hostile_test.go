package engine_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/engine"
)

// serve runs the engine as tpsbench serve does, on its own listener with
// its timeouts and connection cap, and returns its URL.
func serve(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	e, err := engine.Load(engine.Options{Model: "tiny", Threads: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(done)
		if err := e.Serve(ctx, "127.0.0.1:0", func(url string) { ready <- url }); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done; e.Close() })
	return e, <-ready
}

// TestServeUnderHostileBodies: bodies made to hurt a server (over the
// size bound, nested a hundred thousand deep, a thousand media parts,
// a string of four million escapes, a hundred thousand messages) are
// each refused with a 4xx that says why, the server's heap does not grow
// past what one bounded body takes, and it answers a plain request after.
func TestServeUnderHostileBodies(t *testing.T) {
	_, url := serve(t)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	media := `{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},`
	for _, c := range []struct {
		name, path, body, says string
	}{
		{"over the size bound", "/v1/completions", `{"prompt":"` + strings.Repeat("a", 5<<20) + `"}`, "limit"},
		{"nested 100,000 deep", "/v1/chat/completions", `{"messages":` + deep + `}`, ""},
		{"nested in an unknown field", "/v1/completions", `{"prompt":"a","x":` + deep + `}`, ""},
		{"a thousand media parts", "/v1/chat/completions", `{"messages":[{"role":"user","content":[` + strings.Repeat(media, 1000) + `{"type":"text","text":"a"}]}]}`, "image_url"},
		{"four million escapes", "/v1/completions", `{"prompt":"` + strings.Repeat(`\u0000`, 700000) + `","max_tokens":1}`, ""},
		{"a hundred thousand messages", "/v1/chat/completions", `{"messages":[` + strings.Repeat(`{"role":"user","content":"a"},`, 100000) + `{"role":"user","content":"a"}],"max_tokens":1}`, ""},
	} {
		start := time.Now()
		resp, err := http.Post(url+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 || !strings.Contains(string(b), c.says) {
			t.Errorf("%s: HTTP %d %.200s, want a 4xx saying %q", c.name, resp.StatusCode, b, c.says)
		}
		t.Logf("%s: HTTP %d in %v", c.name, resp.StatusCode, time.Since(start).Round(time.Millisecond))
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<20 {
		t.Errorf("the heap grew by %d MB over the hostile bodies", grew>>20)
	}
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a b","max_tokens":2}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a plain request after them: %v %v", resp, err)
	}
	resp.Body.Close()
}
