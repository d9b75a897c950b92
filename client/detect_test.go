package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDetectAPI: each server is told by the route only it answers, and
// asked in its own API; an OpenAI server by its models.
func TestDetectAPI(t *testing.T) {
	cases := []struct{ route, body, want string }{
		{"/api/tags", `{"models":[{"name":"llama3"}]}`, APIOllama},
		{"/props", `{"default_generation_settings":{},"total_slots":1}`, APILlamaCpp},
		{"/get_model_info", `{"model_path":"m","is_generation":true}`, APISGLang},
		{"/info", `{"model_id":"m","version":"3"}`, APITGI},
		{"/v1/models", `{"object":"list","data":[{"id":"m"}]}`, APIChat},
	}
	for _, c := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != c.route {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(c.body))
		}))
		got, err := DetectAPI(context.Background(), srv.URL+"/v1", "", nil)
		srv.Close()
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.route, got, err, c.want)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"x":1}`)) // every route answers, with nothing known
	}))
	defer srv.Close()
	if _, err := DetectAPI(context.Background(), srv.URL, "", nil); err == nil || !strings.Contains(err.Error(), "answers none of") {
		t.Errorf("an unknown server: %v", err)
	}
	if got, err := DetectAPI(context.Background(), srv.URL+"/v1/responses", "", nil); err != nil || got != APIResponses {
		t.Errorf("a full endpoint: %q, %v", got, err)
	}
}

// TestTokenizerForms: /tokenize as vLLM (a count), llama.cpp (content in,
// tokens out) and TGI (inputs in, a list out) answer it.
func TestTokenizerForms(t *testing.T) {
	cases := []struct{ api, wantKey, answer string }{
		{APIChat, `"messages"`, `{"count":5,"tokens":[1,2,3,4,5]}`},
		{APILlamaCpp, `"content"`, `{"tokens":[1,2,3,4,5]}`},
		{APITGI, `"inputs"`, `[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5}]`},
	}
	for _, c := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b := make([]byte, 1024)
			n, _ := r.Body.Read(b)
			if r.URL.Path != "/tokenize" || !strings.Contains(string(b[:n]), c.wantKey) {
				http.Error(w, "no", 400)
				return
			}
			w.Write([]byte(c.answer))
		}))
		tk, err := NewTokenizer(context.Background(), srv.URL, c.api, "m", "")
		if err != nil {
			t.Errorf("%s: %v", c.api, err)
		} else if n, err := tk.Count(context.Background(), "one two"); err != nil || n != 5 {
			t.Errorf("%s: %d, %v", c.api, n, err)
		}
		srv.Close()
	}
}

// TestDetectWithinTheDeadline: the probes end with the caller's deadline
// (the run's --timeout) and with a server that is not there, instead of
// each of the five waiting its own 10 s.
func TestDetectWithinTheDeadline(t *testing.T) {
	var probes atomic.Int32
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		probes.Add(1)
		<-r.Context().Done()
	}))
	defer hang.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := DetectAPI(ctx, hang.URL, "", nil); err == nil || !strings.Contains(err.Error(), "for /v1/models") {
		t.Errorf("a server that never answers: %v", err)
	}
	if n := probes.Load(); n > 1 {
		t.Errorf("%d probes sent past the deadline's end; want the first at most", n)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if _, err := DetectAPI(context.Background(), gone.URL, "", nil); err == nil || !strings.Contains(err.Error(), "asking the server") || strings.Contains(err.Error(), "/api/tags") {
		t.Errorf("no server: %v", err)
	}
}

// TestDetectPrefersOpenAI: a server that speaks OpenAI's API besides its
// own (TGI, llama.cpp, SGLang, Ollama all do) is measured through the
// OpenAI path its users take, chat template included; auto picked TGI's
// /generate_stream on such a server.
func TestDetectPrefersOpenAI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/info":
			w.Write([]byte(`{"model_id":"m","version":"3"}`))
		case "/v1/models":
			w.Write([]byte(`{"object":"list","data":[{"id":"m"}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	api, why, err := Detect(context.Background(), srv.URL, "", nil)
	if err != nil || api != APIChat || !strings.Contains(why, "/v1/models") {
		t.Errorf("%q (%s), %v; want chat, for its /v1/models", api, why, err)
	}
}
