package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
