package server

import (
	"errors"
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
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		req, prompt, _, err := s.parseBody(body, chat)
		if err != nil {
			var br badRequest
			if !errors.As(err, &br) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(prompt) == 0 || *req.MaxTokens < 1 || len(prompt)+*req.MaxTokens > s.model.Context {
			t.Fatalf("accepted prompt %d tokens, max_tokens %d, context %d", len(prompt), *req.MaxTokens, s.model.Context)
		}
	})
}
