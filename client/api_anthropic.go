package client

import (
	"net/http"
	"strings"
)

// APIAnthropic is Anthropic's Messages API (/v1/messages): typed SSE
// events (message_start, content_block_delta with text, thinking and tool
// input deltas, message_delta with the usage, message_stop), served by
// Anthropic and by many gateways.
const APIAnthropic = "anthropic"

// anthropicVersion is the API version every request names.
const anthropicVersion = "2023-06-01"

// anthropicDefaultBudget is max_tokens when none is set: the API requires
// one.
const anthropicDefaultBudget = 4096

var anthropicAPI = protocol{
	name:      APIAnthropic,
	help:      "Anthropic's /v1/messages",
	path:      "/v1/messages",
	endpoints: []string{"/messages"},
	body:      anthropicBody,
	scanner:   func(*streamState) scanFunc { return scanAnthropic }, // message_start's prompt count stays the record's: message_delta's usage has none
	chat:      true,
	authorize: func(h http.Header, key string) {
		h.Set("anthropic-version", anthropicVersion)
		if key != "" {
			h.Set("x-api-key", key)
		}
	},
	// its model list has first_id, which OpenAI's has not; asked with its
	// own headers, after the OpenAI probe, which its key refuses
	probe:  &probe{"/v1/models", "first_id", "it lists models at /v1/models as Anthropic's API does"},
	budget: []string{"max_tokens"},
	prompt: "messages",
}

// anthropicBody is a Messages request: system messages go in its system
// field, the rest in messages; it takes no ignore_eos.
func anthropicBody(cfg *HTTPConfig, req *Request) map[string]any {
	var system []string
	var msgs []Message
	for _, m := range messages(req) {
		if m.Role == "system" {
			system = append(system, m.Content)
		} else {
			msgs = append(msgs, m)
		}
	}
	budget := req.MaxTokens
	if budget <= 0 {
		budget = anthropicDefaultBudget
	}
	b := map[string]any{"model": req.Model, "messages": msgs, "max_tokens": budget, "stream": cfg.Stream}
	if len(system) > 0 {
		b["system"] = strings.Join(system, "\n")
	}
	if cfg.Temperature != nil {
		b["temperature"] = *cfg.Temperature
	}
	putSampling(b, cfg.Sampling, map[string]string{"stop": "stop_sequences",
		"min_p": "", "frequency_penalty": "", "presence_penalty": "", "repetition_penalty": ""})
	return b
}

// scanAnthropic reads one event of the Messages API, or a whole message.
func scanAnthropic(data []byte, ci *chunkInfo) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	var typ, stop []byte
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "type":
			return s.strInto(&typ)
		case "message": // message_start's message
			if s.peek() == '{' {
				return s.object(func(k []byte) error {
					switch string(k) {
					case "id":
						return s.strInto(&ci.id)
					case "usage":
						return s.anthropicUsage(ci, false)
					}
					return s.skip()
				})
			}
		case "delta":
			if s.peek() == '{' {
				return s.anthropicDelta(ci, &stop)
			}
		case "usage": // message_delta's, or a whole message's
			return s.anthropicUsage(ci, true)
		case "id":
			return s.strInto(&ci.id)
		case "content": // a whole message's blocks
			if s.peek() == '[' {
				return s.array(func() error {
					if s.peek() != '{' {
						return s.skip()
					}
					return s.anthropicBlock(ci)
				})
			}
		case "stop_reason":
			return s.strInto(&stop)
		case "error":
			if s.peek() == 'n' {
				return s.skip() // an error of null is none, as in every API
			}
			ci.hasError = true
			return s.errorValue(ci)
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	switch string(typ) {
	case "error":
		ci.hasError = true
	case "message_stop":
		ci.last = true
	case "message":
		ci.last = true // a whole message
	}
	if len(stop) > 0 {
		ci.finish = []byte(anthropicFinish(string(stop)))
	}
	return s.end()
}

// anthropicFinish is a stop reason as OpenAI's finish reasons name it.
func anthropicFinish(stop string) string {
	switch stop {
	case "max_tokens":
		return "length"
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	}
	return stop
}

// anthropicUsage reads a usage object: the prompt's tokens (input, and
// those read from or written to its cache) and, when output, the
// output's, cumulative.
func (s *scanner) anthropicUsage(ci *chunkInfo, output bool) error {
	if s.peek() != '{' {
		return s.skip()
	}
	return s.object(func(k []byte) error {
		switch string(k) {
		case "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens":
			n, err := s.int()
			ci.prompt += n
			if string(k) == "cache_read_input_tokens" {
				ci.cached = n
			}
			return err
		case "output_tokens":
			if output {
				ci.hasUsage = true
				return s.intInto(&ci.completion)
			}
		}
		return s.skip()
	})
}

// anthropicDelta reads a content_block_delta's delta (text, thinking, a
// tool's input) or a message_delta's (its stop reason).
func (s *scanner) anthropicDelta(ci *chunkInfo, stop *[]byte) error {
	return s.object(func(k []byte) error {
		switch string(k) {
		case "text":
			return s.text(ci, false)
		case "thinking":
			return s.text(ci, true)
		case "partial_json":
			var v []byte
			err := s.strInto(&v)
			ci.toolCall = ci.toolCall || len(v) > 0
			return err
		case "stop_reason":
			return s.strInto(stop)
		}
		return s.skip()
	})
}

// anthropicBlock reads one content block of a whole message.
func (s *scanner) anthropicBlock(ci *chunkInfo) error {
	return s.object(func(k []byte) error {
		switch string(k) {
		case "text":
			return s.text(ci, false)
		case "thinking":
			return s.text(ci, true)
		case "input":
			ci.toolCall = true
		}
		return s.skip()
	})
}
