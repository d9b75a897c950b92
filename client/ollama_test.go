package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// ollamaServer streams n tokens the way Ollama's /api/chat does, and lists
// one model at /api/tags.
func ollamaServer(t *testing.T, n int) (string, func() map[string]any) {
	t.Helper()
	// behind a lock: the race detector does not see the socket between
	// handler and client, as the client reads it with recvmsg
	var mu sync.Mutex
	got := map[string]any{}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/tags", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"models":[{"name":"llama3.2:1b"}]}`)
	})
	mux.HandleFunc("/api/chat", func(w http.ResponseWriter, r *http.Request) {
		req := map[string]any{}
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		got = req
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-ndjson")
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":" w%d"},"done":false}`+"\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(2 * time.Millisecond)
		}
		fmt.Fprintf(w, `{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"length","total_duration":90000000,"load_duration":1000000,"prompt_eval_count":7,"prompt_eval_duration":5000000,"eval_count":%d,"eval_duration":80000000}`+"\n", n)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, func() map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

func TestOllama(t *testing.T) {
	url, got := ollamaServer(t, 5)
	ids, err := ListModels(context.Background(), url, APIOllama, "", nil)
	if err != nil || len(ids) != 1 || ids[0] != "llama3.2:1b" {
		t.Fatalf("models %v %v", ids, err)
	}
	cl := newClient(t, url, func(c *HTTPConfig) { c.API = APIOllama })
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Prompt: "hi", MaxTokens: 5}, &rec)
	if rec.Error != nil {
		t.Fatal(rec.Error)
	}
	if rec.OutputTokens != 5 || rec.TokenSource != record.SourceUsage || rec.PromptTokens != 7 || len(rec.Chunks) != 5 || rec.FinishReason != "length" {
		t.Fatalf("record %+v", rec)
	}
	if rec.Server == nil || rec.Server.EvalNS != 80000000 || rec.Server.TotalNS != 90000000 {
		t.Fatalf("server timings %+v", rec.Server)
	}
	if opts, _ := got()["options"].(map[string]any); opts["num_predict"] != float64(5) || !strings.Contains(fmt.Sprint(got()["messages"]), "hi") {
		t.Fatalf("request %v", got())
	}
	// A stream that stops before done: true is cut.
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"message":{"content":"a"},"done":false}`+"\n")
	}))
	defer cut.Close()
	cl2 := newClient(t, cut.URL, func(c *HTTPConfig) { c.API = APIOllama })
	var r2 record.Record
	cl2.Do(context.Background(), &Request{Model: "m", Prompt: "hi"}, &r2)
	if r2.Error == nil || r2.Error.Kind != record.KindStreamCut {
		t.Fatalf("cut stream: %+v", r2.Error)
	}
}
