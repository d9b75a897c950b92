package client

// APIResponses is OpenAI's Responses API (/v1/responses, vLLM serves it):
// events response.output_text.delta and the like.
const APIResponses = "responses"

var responsesAPI = protocol{
	name:      APIResponses,
	help:      "/v1/responses",
	path:      "/v1/responses",
	endpoints: []string{"/responses"},
	body:      responsesBody,
	scanner:   func(*streamState) scanFunc { return scanResponses },
	chat:      true,
	budget:    []string{"max_output_tokens"},
	prompt:    "input",
}

func responsesBody(cfg *HTTPConfig, req *Request) map[string]any {
	b := map[string]any{"model": req.Model, "input": messages(req), "stream": cfg.Stream}
	setSampling(b, cfg, req, "max_output_tokens", nil)
	return b
}

// scanResponses reads one event of OpenAI's Responses API, or a whole
// response object. Its text comes in typed delta events; its usage (input,
// output and reasoning tokens) and its end in response.completed or
// response.incomplete. The stream has no [DONE]: its end is that event.
func scanResponses(data []byte, ci *chunkInfo) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	var typ, delta, status, reason []byte
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "type":
			return s.strInto(&typ)
		case "delta":
			if s.peek() == '"' {
				return s.strInto(&delta)
			}
		case "response":
			if s.peek() == '{' {
				// an event's response (response.completed's holds the whole
				// output again, as OpenAI and llama.cpp send it): the deltas
				// carried its text, so only its usage and status count
				return s.object(func(k []byte) error {
					if string(k) == "output" {
						return s.skip()
					}
					return s.responseField(k, ci, &status, &reason)
				})
			}
		case "object": // a whole response: the object itself
			var obj []byte
			if err := s.strInto(&obj); err != nil {
				return err
			}
			if string(obj) == "response" {
				typ = []byte("response")
			}
			return nil
		case "output", "usage", "status", "incomplete_details", "id":
			// a whole response's fields, at the top level
			return s.responseField(key, ci, &status, &reason)
		case "error":
			if s.peek() == 'n' { // "error": null
				return s.skip()
			}
			ci.hasError = true
			return s.errorValue(ci)
		case "message": // an error event's
			return s.strInto(&ci.errMsg)
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	if err := s.end(); err != nil {
		return err
	}
	switch string(typ) {
	case "response.output_text.delta", "response.refusal.delta":
		ci.addText(delta, false)
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		ci.addText(delta, true)
	case "response.function_call_arguments.delta":
		ci.toolCall = len(delta) > 0
	case "response.failed", "error":
		ci.hasError = true
	case "response.completed", "response.incomplete", "response":
		ci.finish, ci.last = []byte("stop"), true
		if string(status) == "incomplete" {
			ci.finish = []byte("incomplete")
			if string(reason) == "max_output_tokens" {
				ci.finish = []byte("length")
			}
		}
	}
	return nil
}

func (s *scanner) responseField(key []byte, ci *chunkInfo, status, reason *[]byte) error {
	switch string(key) {
	case "id":
		if s.peek() == '"' {
			return s.strInto(&ci.id)
		}
	case "status":
		if s.peek() == '"' {
			return s.strInto(status)
		}
	case "incomplete_details":
		if s.peek() == '{' {
			return s.object(func(k []byte) error {
				if string(k) == "reason" && s.peek() == '"' {
					return s.strInto(reason)
				}
				return s.skip()
			})
		}
	case "error":
		if s.peek() == '{' {
			ci.hasError = true
			return s.errorValue(ci)
		}
	case "usage":
		if s.peek() == '{' {
			return s.responsesUsage(ci)
		}
	case "output":
		// a whole response's items: messages' output_text, reasoning
		// text, function calls' arguments
		if s.peek() == '[' {
			return s.array(func() error {
				if s.peek() != '{' {
					return s.skip()
				}
				var typ []byte
				var texts [][]byte
				err := s.object(func(k []byte) error {
					switch string(k) {
					case "type":
						return s.strInto(&typ)
					case "arguments":
						if s.peek() == '"' {
							var a []byte
							if err := s.strInto(&a); err != nil {
								return err
							}
							ci.toolCall = ci.toolCall || len(a) > 0
							return nil
						}
					case "content", "summary":
						if s.peek() == '[' {
							return s.array(func() error {
								if s.peek() != '{' {
									return s.skip()
								}
								return s.object(func(p []byte) error {
									if string(p) == "text" && s.peek() == '"' {
										var t []byte
										if err := s.strInto(&t); err != nil {
											return err
										}
										texts = append(texts, t)
										return nil
									}
									return s.skip()
								})
							})
						}
					}
					return s.skip()
				})
				for _, t := range texts {
					ci.addText(t, string(typ) == "reasoning")
				}
				return err
			})
		}
	}
	return s.skip()
}

// responsesUsage reads a response's usage: input and output tokens, the
// input's cached tokens and the output's reasoning tokens.
func (s *scanner) responsesUsage(ci *chunkInfo) error {
	ci.hasUsage = true
	return s.object(func(k []byte) error {
		switch string(k) {
		case "input_tokens":
			return s.intInto(&ci.prompt)
		case "output_tokens":
			return s.intInto(&ci.completion)
		case "input_tokens_details":
			return s.cachedTokens(ci, "cached_tokens")
		case "output_tokens_details":
			if s.peek() == '{' {
				return s.object(func(d []byte) error {
					if string(d) == "reasoning_tokens" {
						return s.intInto(&ci.reasoning)
					}
					return s.skip()
				})
			}
		}
		return s.skip()
	})
}
