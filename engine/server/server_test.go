package server

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

func tinyServer(t testing.TB) *Server {
	p, _ := synth.Lookup("tiny")
	b, err := synth.Bytes(p, gguf.Q4_0, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := gguf.Parse(b)
	m, err := llama.Load(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	tk, _ := tokenizer.FromGGUF(f)
	return New("tiny", m, tk, nil)
}

// FuzzRequestDecoder: any body gives a parsed request within the model's
// limits, or a badRequest; never a panic.
func FuzzRequestDecoder(f *testing.F) {
	s := tinyServer(f)
	f.Add([]byte(`{"prompt":"hi","max_tokens":5,"temperature":0.7,"top_p":0.9,"top_k":40,"seed":3,"stop":["x"],"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`), false)
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":3,"stop":"\n"}`), true)
	f.Add([]byte(`{"prompt":["a"],"n":1,"model":"tiny"}`), false)
	f.Add([]byte(`{"prompt":1e400}`), false)
	f.Add([]byte(`{"prompt":[[1,5,9]],"max_tokens":2}`), false)
	f.Add([]byte(`{"messages":[{"role":"user"}],"tools":[]}`), true)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"max_tokens":2}`), true)
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		c, err := s.parseBody(body, chat)
		if err != nil {
			var br badRequest
			var nf modelNotFound
			if !errors.As(err, &br) && !errors.As(err, &nf) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(c.prompt) == 0 || *c.MaxTokens < 1 || len(c.prompt)+*c.MaxTokens > s.model.Context {
			t.Fatalf("accepted prompt %d tokens, max_tokens %d, context %d", len(c.prompt), *c.MaxTokens, s.model.Context)
		}
	})
}

// TestChatContent: a message's content may be a string or an array of
// text parts (as vLLM's benchmark sends it); the two give the same prompt,
// and other parts or types are refused naming the field.
func TestChatContent(t *testing.T) {
	s := tinyServer(t)
	promptOf := func(body string) ([]int, error) {
		c, err := s.parseBody([]byte(body), true)
		if err != nil {
			return nil, err
		}
		return c.prompt, nil
	}
	want, err := promptOf(`{"messages":[{"role":"user","content":"hi\nthere"}],"max_tokens":2}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := promptOf(`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"there"}]}],"max_tokens":2}`)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("parts: prompt %v, %v; want %v", got, err, want)
	}
	for _, tc := range []struct{ body, param, msg string }{
		{`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, "messages.content", `type "image_url"`},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`, "messages.content", "no vision or audio encoder"},
		{`{"messages":[{"role":"user","content":[{"type":"video_url","video_url":{"url":"data:video/x-msvideo;base64,UklGRg=="}}]}]}`, "messages.content", `type "video_url"`},
		{`{"messages":[{"role":"user","content":[{"type":"text"}]}]}`, "messages.content", "only text parts"},
		{`{"messages":[{"role":"user","content":7}]}`, "messages.content", "a string or an array of text parts"},
		{`{"messages":"hi"}`, "messages", "messages: want an array, got string"},
		{`[]`, "", "the body: want an object, got array"},
		{`{"messages":[{"role":"user","content":"hi"}],"stream":"yes"}`, "stream", "stream: want true or false, got string"},
	} {
		_, err := promptOf(tc.body)
		var br badRequest
		if !errors.As(err, &br) || br.param != tc.param || !strings.Contains(br.msg, tc.msg) {
			t.Errorf("%s: %#v, want param %q and %q", tc.body, err, tc.param, tc.msg)
		}
	}
}

// TestTokenizeEndpoint: /tokenize lays out messages as the chat endpoint
// does, parts and all, and refuses a bad body naming the field.
func TestTokenizeEndpoint(t *testing.T) {
	s := tinyServer(t)
	post := func(body string) (int, map[string]any) {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("POST", "/tokenize", strings.NewReader(body)))
		var out map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return w.Code, out
	}
	c, err := s.parseBody([]byte(`{"messages":[{"role":"user","content":"a\nb"}],"max_tokens":1}`), true)
	if err != nil {
		t.Fatal(err)
	}
	want := c.prompt
	for _, body := range []string{
		`{"messages":[{"role":"user","content":"a\nb"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`,
	} {
		code, out := post(body)
		if code != 200 || out["count"] != float64(len(want)) {
			t.Errorf("%s: %d %v, want %d tokens", body, code, out, len(want))
		}
	}
	code, out := post(`{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}`)
	e, _ := out["error"].(map[string]any)
	if code != 400 || e["param"] != "messages.content" {
		t.Errorf("image part: %d %v", code, out)
	}
}

// TestHugePromptRefusedBeforeEncoding: a 4 MiB prompt was tokenized whole
// (3 s, and 380 MB, a request) before being refused as longer than the
// context. It is refused from its length alone.
func TestHugePromptRefusedBeforeEncoding(t *testing.T) {
	s := tinyServer(t)
	text := strings.Repeat("hello world ", (4<<20-100)/12) // just under the 4 MiB body limit
	for _, c := range []struct{ path, body string }{
		{"/v1/completions", `{"prompt":"` + text + `","max_tokens":1}`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"` + text + `"}],"max_tokens":1}`},
		{"/tokenize", `{"prompt":"` + text + `"}`},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("POST", c.path, strings.NewReader(c.body)))
		runtime.ReadMemStats(&after)
		if w.Code != 400 || !strings.Contains(w.Body.String(), "at least") {
			t.Errorf("%s: %d %s", c.path, w.Code, w.Body)
		}
		// the body, its decoded copy and the prompt text: a few times 4 MiB
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 48<<20 {
			t.Errorf("%s: %d MB allocated to refuse a 4 MiB prompt", c.path, alloc>>20)
		}
	}
}

// TestLongModelNameNotEchoed: a 3 MB model name came back whole in the
// error.
func TestLongModelNameNotEchoed(t *testing.T) {
	s := tinyServer(t)
	w := httptest.NewRecorder()
	body := `{"model":"` + strings.Repeat("m", 3<<20) + `","prompt":"hi","max_tokens":1}`
	s.ServeHTTP(w, httptest.NewRequest("POST", "/v1/completions", strings.NewReader(body)))
	if w.Code/100 != 4 || w.Body.Len() > 1024 || !strings.Contains(w.Body.String(), "3145728 bytes") {
		t.Errorf("%d, %d bytes: %.300s", w.Code, w.Body.Len(), w.Body)
	}
}
