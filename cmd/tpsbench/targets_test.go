package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

func TestModelDefaultsToServers(t *testing.T) {
	srv := server(t)
	code, out, errs := cli(t, "run", "--url", srv.URL, "--max-tokens", "3", "-q")
	if code != 0 || !strings.Contains(out, "Model: scripted") {
		t.Fatalf("exit %d, output %s %s", code, out, errs)
	}
}

func TestTargetsSetExitCode(t *testing.T) {
	srv := server(t)
	code, out, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--slo", "ttft=1ms", "-q")
	if code != exitTargetsFail || !strings.Contains(out, "FAIL ttft") {
		t.Fatalf("exit %d, want 3:\n%s", code, out)
	}
	code, out, _ = cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--target-use", "chat", "-q")
	if code != 0 || !strings.Contains(out, "PASS request_tps") {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
}

// TestTargetSpecErrors: a --target missing a part says which part, and
// never shows the URL's credentials.
func TestTargetSpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"reason=http://user:secret@127.0.0.1:1/v1": "--target reason=http://127.0.0.1:1/v1: no #MODEL after the URL",
		"http://127.0.0.1:1#m":                     "no NAME= before the URL",
		"a=#m":                                     "--target a: no URL",
	} {
		code, _, errs := cli(t, "run", "--target", spec)
		if code != exitUsage || !strings.Contains(errs, want) || strings.Contains(errs, "secret") {
			t.Errorf("--target %s: exit %d %q; want %q", spec, code, errs, want)
		}
	}
}

func TestOllamaAPI(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/tags", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"models":[{"name":"tiny:latest"}]}`) })
	mux.HandleFunc("/api/chat", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 4; i++ {
			fmt.Fprint(w, `{"message":{"content":" x"},"done":false}`+"\n")
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, `{"message":{"content":""},"done":true,"eval_count":4,"prompt_eval_count":3,"eval_duration":1000000}`+"\n")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--api", "ollama", "--requests", "2", "--concurrency", "2", "-q")
	if code != 0 || !strings.Contains(out, "Model: tiny:latest") || !strings.Contains(out, "Total tokens: 8 generated, 6 prompt") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

// TestTargetNamesUseCase: a target from --target-use says which use case
// it is, and its value reads as the tables do.
func TestTargetNamesUseCase(t *testing.T) {
	srv := server(t)
	_, out, _ := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "5", "--target-use", "chat", "--slo", "ttft=1s")
	if !strings.Contains(out, "request_tps (chat) at least 30.00 tok/s") || !strings.Contains(out, "ttft at most 1000 ms") {
		t.Errorf("targets:\n%s", out)
	}
}

// TestReadyCheck: with --ready-check-timeout the run waits while the
// server answers 503 (as llama.cpp's does while it loads its model) and
// sends no request before it is ready; a server that never gets ready
// ends the run with an error that says so.
func TestReadyCheck(t *testing.T) {
	h := scripted.NewHandler(func(int) scripted.Script { return scripted.Script{Usage: true, Tokens: 2} }, false)
	var asked, early atomic.Int32
	const loading = 3 // model lists answered 503 before the server is ready
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" && asked.Add(1) <= loading {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":{"message":"Loading model"}}`))
			return
		}
		if r.Method == http.MethodPost && asked.Load() <= loading {
			early.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer gate.Close()
	code, out, errs := cli(t, "run", "--url", gate.URL, "--model", "m", "--requests", "2", "--max-tokens", "2", "--ready-check-timeout", "1m")
	if code != 0 || asked.Load() <= loading || early.Load() != 0 || !strings.Contains(errs, "waiting up to 1m0s") || !strings.Contains(out, "2 completed") {
		t.Fatalf("exit %d, %d model lists asked, %d requests before ready:\n%s%s", code, asked.Load(), early.Load(), out, errs)
	}

	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer never.Close()
	code, _, errs = cli(t, "run", "--url", never.URL, "--model", "m", "--requests", "1", "--ready-check-timeout", "600ms")
	if code != 1 || !strings.Contains(errs, "was not ready within 600ms (last: HTTP 503") {
		t.Errorf("a server never ready: exit %d, %s", code, errs)
	}
}
