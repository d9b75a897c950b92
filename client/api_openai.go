package client

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
		b["messages"] = messages(req)
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
