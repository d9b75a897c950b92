package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
