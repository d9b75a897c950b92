package client

import (
	"encoding/json"
	"strings"
)

// APITGI is Hugging Face TGI's /generate_stream (/generate unstreamed).
const APITGI = "tgi"

var tgiAPI = protocol{
	name:          APITGI,
	help:          "/generate_stream",
	path:          "/generate_stream",
	wholePath:     "/generate",
	endpoints:     []string{"/generate_stream"},
	body:          tgiBody,
	scanner:       func(*streamState) scanFunc { return scanTGI },
	modelLists:    []string{"/info", "/v1/models"},
	tokenizeField: "inputs", // its /tokenize answers a list of tokens
	probe:         &probe{"/info", "model_id", "it answers TGI's /info and no /v1/models"},
	// its path says whether it streams, whatever the body
	streams: func(path string, _ *bool) bool { return strings.HasSuffix(path, "_stream") },
	// its /generate takes inputs; SGLang's, text
	claims: func(body map[string]json.RawMessage) bool { _, ok := body["inputs"]; return ok },
	budget: []string{"parameters.max_new_tokens"},
	prompt: "inputs",
}

func tgiBody(cfg *HTTPConfig, req *Request) map[string]any {
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
	putSampling(params, cfg.Sampling, map[string]string{"min_p": "", "presence_penalty": ""})
	return map[string]any{"inputs": promptText(req), "parameters": params}
}

// scanTGI reads one event of TGI's /generate_stream (a token each, the
// last with the generated text and details), or /generate's response.
func scanTGI(data []byte, ci *chunkInfo) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	var generated []byte
	hasToken := false
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "token":
			if s.peek() == '{' {
				hasToken = true
				return s.object(func(k []byte) error {
					if string(k) == "text" {
						return s.text(ci, false)
					}
					return s.skip()
				})
			}
		case "generated_text":
			if s.peek() == '"' {
				return s.strInto(&generated)
			}
		case "details":
			if s.peek() == '{' {
				return s.object(func(k []byte) error {
					switch string(k) {
					case "finish_reason":
						if s.peek() == '"' {
							return s.strInto(&ci.finish)
						}
					case "generated_tokens":
						ci.hasUsage = true
						return s.intInto(&ci.completion)
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
	// a token whose text is empty (a special token) is still one made
	ci.emptyToken = hasToken && ci.textBytes == 0
	if !hasToken && generated != nil {
		ci.addText(generated, false) // /generate: the whole text at once
	}
	if ci.hasUsage && len(ci.finish) == 0 {
		ci.finish = []byte("stop")
	}
	return s.end()
}
