package client

import "fmt"

// APISGLang is SGLang's /generate: cumulative text and counts.
const APISGLang = "sglang"

var sglangAPI = protocol{
	name:      APISGLang,
	help:      "/generate",
	path:      "/generate",
	endpoints: []string{"/generate"},
	body:      sglangBody,
	scanner: func(st *streamState) scanFunc {
		return func(b []byte, ci *chunkInfo) error { return scanSGLang(b, ci, &st.textSoFar) }
	},
	probe:  &probe{"/get_model_info", "model_path", "it answers SGLang's /get_model_info and no /v1/models"},
	budget: []string{"sampling_params.max_new_tokens"},
	prompt: "text",
}

func sglangBody(cfg *HTTPConfig, req *Request) map[string]any {
	params := map[string]any{}
	setSampling(params, cfg, req, "max_new_tokens", nil)
	return map[string]any{"text": promptText(req), "sampling_params": params, "stream": cfg.Stream}
}

// scanSGLang reads one event of SGLang's /generate: the text so far and
// the counts so far (meta_info), which prev (the text's length in the
// event before) turns into this event's part.
func scanSGLang(data []byte, ci *chunkInfo, prev *int) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	var text []byte
	hasText := false
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "text":
			if s.peek() == '"' {
				hasText = true
				return s.strInto(&text)
			}
		case "meta_info":
			if s.peek() == '{' {
				return s.object(func(k []byte) error {
					switch string(k) {
					case "prompt_tokens":
						return s.intInto(&ci.prompt)
					case "completion_tokens":
						ci.hasUsage = true
						return s.intInto(&ci.completion)
					case "cached_tokens":
						return s.intInto(&ci.cached)
					case "id":
						if s.peek() == '"' {
							return s.strInto(&ci.id)
						}
					case "finish_reason":
						if s.peek() == '{' {
							return s.object(func(f []byte) error {
								if string(f) == "type" && s.peek() == '"' {
									return s.strInto(&ci.finish)
								}
								return s.skip()
							})
						}
					}
					return s.skip()
				})
			}
		case "error":
			ci.hasError = true
			return s.errorValue(ci)
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	if hasText {
		if len(text) < *prev {
			return fmt.Errorf("the text so far shrank from %d to %d bytes", *prev, len(text))
		}
		ci.addText(text[*prev:], false)
		*prev = len(text)
	}
	return s.end()
}
