package client

import (
	"encoding/base64"
	"strings"

	"github.com/tpsbench/tpsbench/content"
)

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
		b["messages"] = withMedia(messages(req), req.Media)
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

// withMedia is msgs with media as parts of the last user message's
// content, after its text: images as image_url parts and videos as
// video_url parts (data URLs, vLLM's and SGLang's video extension),
// audio as input_audio parts; what a multimodal model's chat takes.
func withMedia(msgs []Message, media []Media) any {
	if len(media) == 0 {
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
		for _, part := range media {
			parts = append(parts, mediaPart(part))
		}
		out[i] = map[string]any{"role": m.Role, "content": parts}
	}
	return out
}

// mediaPart is one medium as a chat content part.
func mediaPart(m Media) map[string]any {
	if m.URL != "" { // the server fetches it: vLLM's audio_url beside OpenAI's image_url
		kind := m.Kind()
		return map[string]any{"type": kind + "_url", kind + "_url": map[string]any{"url": m.URL}}
	}
	data := base64.StdEncoding.EncodeToString(m.Data)
	switch m.Kind() {
	case content.KindAudio:
		return map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": data, "format": audioFormat(m.MIME)}}
	case content.KindVideo:
		return map[string]any{"type": "video_url", "video_url": map[string]any{"url": "data:" + m.MIME + ";base64," + data}}
	}
	return map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + m.MIME + ";base64," + data}}
}

// audioFormat is input_audio's format of an audio MIME type: wav, mp3,
// or the subtype.
func audioFormat(mime string) string {
	_, sub, _ := strings.Cut(mime, "/")
	switch sub {
	case "mpeg":
		return "mp3"
	case "x-wav", "wave":
		return "wav"
	}
	return sub
}
