package server

import (
	"encoding/json"
	"fmt"
	"strings"
)

// content is a chat message's text. OpenAI's API takes a string or an
// array of typed parts; vLLM's benchmark client sends the array, so text
// parts are served, joined by newlines as vLLM joins them, and any other
// part is refused by name.
type content string

func (c *content) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = content(s)
		return nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return badRequest{"messages.content", "messages.content: want a string or an array of text parts"}
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		switch {
		case p.Type == "image_url" || p.Type == "video_url" || p.Type == "input_audio" || p.Type == "audio_url":
			return badRequest{"messages.content", fmt.Sprintf("messages.content: a part of type %q: this engine serves text-only llama models, with no vision or audio encoder; send text parts, or measure a multimodal server with --url", p.Type)}
		case p.Type != "text" || p.Text == nil:
			return badRequest{"messages.content", fmt.Sprintf("messages.content: a part of type %q; only text parts, {\"type\":\"text\",\"text\":...}, are served here", p.Type)}
		}
		texts = append(texts, *p.Text)
	}
	*c = content(strings.Join(texts, "\n"))
	return nil
}
