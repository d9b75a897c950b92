package client

import (
	"fmt"
	"strings"
)

// The APIs beyond OpenAI's chat and completions that servers' own
// benchmarks use: OpenAI's Responses API (vLLM serves it), llama.cpp
// server's /completion, Hugging Face TGI's /generate_stream and SGLang's
// /generate. Each has its request body and its stream's shape; every
// figure comes out as for the others (docs/metrics.md).
const (
	APIResponses = "responses" // /v1/responses, events response.output_text.delta and the like
	APILlamaCpp  = "llamacpp"  // llama.cpp server's /completion, with its timings
	APITGI       = "tgi"       // TGI's /generate_stream (/generate unstreamed)
	APISGLang    = "sglang"    // SGLang's /generate, cumulative text and counts
	// APIAuto asks the server which of these it speaks (DetectAPI).
	APIAuto = "auto"
)

// APIs lists every API a client speaks, for help texts and errors.
var APIs = []string{APIChat, APICompletions, APIResponses, APIOllama, APILlamaCpp, APITGI, APISGLang}

// apiPaths are each API's endpoint below a server's root.
var apiPaths = map[string]string{
	APIChat:        "/v1/chat/completions",
	APICompletions: "/v1/completions",
	APIResponses:   "/v1/responses",
	APIOllama:      "/api/chat",
	APILlamaCpp:    "/completion",
	APITGI:         "/generate_stream",
	APISGLang:      "/generate",
}

// apiOfPath tells the API from a full endpoint URL's path, or "".
func apiOfPath(path string) string {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return APIChat
	case strings.HasSuffix(path, "/completions"):
		return APICompletions
	case strings.HasSuffix(path, "/responses"):
		return APIResponses
	case strings.HasSuffix(path, "/api/chat"):
		return APIOllama
	case strings.HasSuffix(path, "/completion"):
		return APILlamaCpp
	case strings.HasSuffix(path, "/generate_stream"):
		return APITGI
	}
	return ""
}

// promptText is the request as one prompt, for APIs that take no
// messages: each message as "role: content" on its lines, then the
// assistant's turn.
func promptText(req *Request) string {
	if len(req.Messages) == 0 {
		return req.Prompt
	}
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
	}
	b.WriteString("assistant:")
	return b.String()
}

// messages is the request as chat messages.
func messages(req *Request) []Message {
	if len(req.Messages) == 0 {
		return []Message{{Role: "user", Content: req.Prompt}}
	}
	return req.Messages
}

// nativeBody is the request body of the APIs that are not OpenAI's
// chat or completions (nor Ollama's: ollamaBody).
func (c *HTTP) nativeBody(req *Request) map[string]any {
	cfg := c.cfg
	var b map[string]any
	switch cfg.API {
	case APIResponses:
		b = map[string]any{"model": req.Model, "input": messages(req), "stream": cfg.Stream}
		if req.MaxTokens > 0 {
			b["max_output_tokens"] = req.MaxTokens
		}
		if cfg.IgnoreEOS {
			b["ignore_eos"] = true
		}
		if cfg.Temperature != nil {
			b["temperature"] = *cfg.Temperature
		}
	case APILlamaCpp:
		b = map[string]any{"prompt": promptText(req), "stream": cfg.Stream}
		if req.MaxTokens > 0 {
			b["n_predict"] = req.MaxTokens
		}
		if cfg.IgnoreEOS {
			b["ignore_eos"] = true
		}
		if cfg.Temperature != nil {
			b["temperature"] = *cfg.Temperature
		}
	case APITGI:
		params := map[string]any{"details": true}
		if req.MaxTokens > 0 {
			params["max_new_tokens"] = req.MaxTokens
		}
		if t := cfg.Temperature; t != nil {
			if *t > 0 {
				params["temperature"], params["do_sample"] = *t, true
			} else {
				params["do_sample"] = false // TGI refuses a temperature of 0
			}
		}
		b = map[string]any{"inputs": promptText(req), "parameters": params}
	case APISGLang:
		params := map[string]any{}
		if req.MaxTokens > 0 {
			params["max_new_tokens"] = req.MaxTokens
		}
		if cfg.IgnoreEOS {
			params["ignore_eos"] = true
		}
		if cfg.Temperature != nil {
			params["temperature"] = *cfg.Temperature
		}
		b = map[string]any{"text": promptText(req), "sampling_params": params, "stream": cfg.Stream}
	}
	for k, v := range cfg.Extra {
		b[k] = v
	}
	return b
}
