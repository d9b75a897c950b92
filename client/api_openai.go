package client

import "encoding/base64"

// OpenAI's chat and completions APIs, which vLLM, SGLang, TGI, llama.cpp's
// server, Ollama and the tpsbench engine all serve.
const (
	APIChat        = "chat"
	APICompletions = "completions"
)

var chatAPI = protocol{
	name:      APIChat,
	help:      "/v1/chat/completions",
	path:      "/v1/chat/completions",
	endpoints: []string{"/chat/completions"},
	body:      openAIBody,
	scanner:   openAIScanner,
	chat:      true,
	media:     true,
	probe:     &probe{"/v1/models", "data", "it lists models at /v1/models: OpenAI-compatible"},
	budget:    []string{"max_tokens", "max_completion_tokens"},
	prompt:    "messages",
}

var completionsAPI = protocol{
	name:      APICompletions,
	help:      "/v1/completions",
	path:      "/v1/completions",
	endpoints: []string{"/completions"},
	body:      openAIBody,
	scanner:   openAIScanner,
	budget:    []string{"max_tokens"},
	prompt:    "prompt",
}

// openAIBody is a chat or completions request; a stream asks for usage in
// its last chunk.
func openAIBody(cfg *HTTPConfig, req *Request) map[string]any {
	b := map[string]any{"model": req.Model, "stream": cfg.Stream}
	if cfg.API == APIChat {
		b["messages"] = withImages(messages(req), req.Images)
	} else {
		b["prompt"] = req.Prompt
	}
	setSampling(b, cfg, req, "max_tokens", nil)
	if cfg.Stream {
		b["stream_options"] = map[string]any{"include_usage": true}
	}
	return b
}

// openAIScanner reads OpenAI's chunks, keeping the timings llama.cpp's
// server adds to them.
func openAIScanner(st *streamState) scanFunc {
	return func(b []byte, ci *chunkInfo) error { return scanOpenAI(b, ci, &st.srv) }
}

// withImages is msgs with images as image_url parts (data URLs) of the
// last user message's content, after its text: what a vision-language
// model's chat takes.
func withImages(msgs []Message, images []Media) any {
	if len(images) == 0 {
		return msgs
	}
	last := len(msgs) - 1
	for last > 0 && msgs[last].Role != "user" {
		last--
	}
	out := make([]any, len(msgs))
	for i, m := range msgs {
		if i != last {
			out[i] = m
			continue
		}
		parts := []any{map[string]any{"type": "text", "text": m.Content}}
		for _, img := range images {
			url := "data:" + img.MIME + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
			parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": url}})
		}
		out[i] = map[string]any{"role": m.Role, "content": parts}
	}
	return out
}
