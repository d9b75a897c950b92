package client

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestReadProxied: a proxied request's API, stream flag, model, budget and
// prompt, read as each API names them, for every API's endpoints, and the
// inputs of one that generates nothing (a list of token ids is one).
func TestReadProxied(t *testing.T) {
	for _, c := range []struct {
		path, body string
		want       Proxied
		prompt     string
	}{
		{"/v1/chat/completions", `{"model":"m","stream":true,"max_tokens":7,"messages":[{"role":"user","content":"hi"}]}`,
			Proxied{API: APIChat, Stream: true, Model: "m", MaxTokens: 7}, `[{"role":"user","content":"hi"}]`},
		{"/v1/chat/completions/", `{"max_completion_tokens":9}`, Proxied{API: APIChat, MaxTokens: 9}, ""},
		{"/openai/v1/completions", `{"model":"m","prompt":"p","max_tokens":3,"stream":false}`,
			Proxied{API: APICompletions, Model: "m", MaxTokens: 3}, `"p"`},
		{"/v1/responses", `{"input":"x","max_output_tokens":5,"stream":true}`, Proxied{API: APIResponses, Stream: true, MaxTokens: 5}, `"x"`},
		{"/api/chat", `{"model":"llama3","messages":[],"options":{"num_predict":4}}`,
			Proxied{API: APIOllama, Stream: true, Model: "llama3", MaxTokens: 4}, `[]`},
		{"/api/chat", `{"stream":false}`, Proxied{API: APIOllama}, ""},
		{"/api/generate", `{"prompt":"p"}`, Proxied{API: APIOllama, Stream: true}, ""},
		{"/completion", `{"prompt":"p","n_predict":8,"stream":true}`, Proxied{API: APILlamaCpp, Stream: true, MaxTokens: 8}, `"p"`},
		{"/generate_stream", `{"inputs":"p","parameters":{"max_new_tokens":6}}`, Proxied{API: APITGI, Stream: true, MaxTokens: 6}, `"p"`},
		{"/generate_stream", `not json`, Proxied{API: APITGI, Stream: true}, ""},
		{"/generate", `{"inputs":"p","stream":true}`, Proxied{API: APITGI}, `"p"`},
		{"/generate", `{"text":"p","stream":true,"sampling_params":{"max_new_tokens":2}}`,
			Proxied{API: APISGLang, Stream: true, MaxTokens: 2}, `"p"`},
		{"/generate", `{"text":null}`, Proxied{API: APISGLang}, ""},
		{"/v1/embeddings", `{"model":"e","input":["a","b","c"]}`, Proxied{API: APIEmbeddings, Model: "e", Inputs: 3}, `["a","b","c"]`},
		{"/v1/embeddings", `{"input":"one text"}`, Proxied{API: APIEmbeddings, Inputs: 1}, `"one text"`},
		{"/v1/embeddings", `{"input":[ 17, 4, 9]}`, Proxied{API: APIEmbeddings, Inputs: 1}, `[ 17, 4, 9]`},
		{"/v1/embeddings", `{"input":[[1,2],[3]]}`, Proxied{API: APIEmbeddings, Inputs: 2}, `[[1,2],[3]]`},
		{"/v1/rerank", `{"query":"q","documents":["x","y"]}`, Proxied{API: APIRerank, Inputs: 2}, `"q"`},
	} {
		got, ok := ReadProxied(c.path, []byte(c.body))
		if !ok || string(got.Prompt) != c.prompt {
			t.Errorf("%s %s: ok %v prompt %q, want %q", c.path, c.body, ok, got.Prompt, c.prompt)
		}
		got.Prompt = nil
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s: %+v, want %+v", c.path, c.body, got, c.want)
		}
		if !Measured(c.path) {
			t.Errorf("%s: not measured", c.path)
		}
	}
	for _, path := range []string{"/v1/models", "/metrics", "/tokenize", "/"} {
		if _, ok := ReadProxied(path, []byte(`{"stream":true}`)); ok || Measured(path) {
			t.Errorf("%s: read as a generation request", path)
		}
	}
}

// FuzzReadProxied: any body, at any path, is read or refused, never a
// panic, and a prompt read is a part of the body.
func FuzzReadProxied(f *testing.F) {
	f.Add("/generate", `{"inputs":"p","parameters":{"max_new_tokens":6}}`)
	f.Add("/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	f.Add("/api/chat", `{"options":{"num_predict":[1]},"stream":"yes"}`)
	f.Add("/v1/audio/transcriptions", "--b\r\nContent-Disposition: form-data; name=\"stream\"\r\n\r\ntrue\r\n--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nRIFF\x24\x00\x00\x00WAVEfmt \r\n--b--\r\n")
	f.Add("/v1/embeddings", `{"input":[[1,2],"x"]}`)
	f.Fuzz(func(t *testing.T, path, body string) {
		req, ok := ReadProxied(path, []byte(body))
		if !ok && !reflect.DeepEqual(req, Proxied{}) {
			t.Fatalf("refused, yet read %+v", req)
		}
		if ok && protocolOf(req.API) == nil {
			t.Fatalf("API %q", req.API)
		}
		if len(req.Prompt) > 0 && !strings.Contains(body, string(req.Prompt)) {
			t.Fatalf("prompt %q is not part of the body", req.Prompt)
		}
		if req.Inputs < 0 || req.MaxTokens < 0 && req.API != "" || !(req.AudioSeconds >= 0) || math.IsInf(req.AudioSeconds, 0) {
			t.Fatalf("read %+v", req)
		}
	})
}
