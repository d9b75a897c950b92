package client

import (
	"fmt"
	"strconv"

	"github.com/tpsbench/tpsbench/record"
)

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
	hasDelta := false
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "type":
			return s.strInto(&typ)
		case "delta":
			if s.peek() == '"' {
				hasDelta = true
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
		ci.addText(delta, false, hasDelta)
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		ci.addText(delta, true, hasDelta)
	case "response.function_call_arguments.delta":
		ci.toolCall = hasDelta && len(delta) > 0
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
			ci.hasUsage = true
			return s.object(func(k []byte) error {
				switch string(k) {
				case "input_tokens":
					return s.intInto(&ci.prompt)
				case "output_tokens":
					return s.intInto(&ci.completion)
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
					ci.addText(t, string(typ) == "reasoning", true)
				}
				return err
			})
		}
	}
	return s.skip()
}

// errorValue reads an error object's message, or an error string.
func (s *scanner) errorValue(ci *chunkInfo) error {
	switch s.peek() {
	case '{':
		return s.object(func(k []byte) error {
			if string(k) == "message" && s.peek() == '"' {
				return s.strInto(&ci.errMsg)
			}
			return s.skip()
		})
	case '"':
		return s.strInto(&ci.errMsg)
	}
	return s.skip()
}

// scanLlamaCpp reads one event of llama.cpp server's /completion (or its
// whole response): content, then a last event with stop: true, the
// counts and the server's timings.
func scanLlamaCpp(data []byte, ci *chunkInfo, srv *record.ServerTiming) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	var stop bool
	var stopType []byte
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "content":
			return s.text(ci, false)
		case "stop":
			stop = s.peek() == 't'
		case "stop_type":
			if s.peek() == '"' {
				return s.strInto(&stopType)
			}
		case "tokens_predicted":
			ci.hasUsage = true
			return s.intInto(&ci.completion)
		case "tokens_evaluated":
			return s.intInto(&ci.prompt)
		case "id_slot", "index":
		case "timings":
			return s.llamaTimings(srv)
		case "error":
			ci.hasError = true
			return s.errorValue(ci)
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	if stop {
		ci.finish = []byte("stop")
		if string(stopType) == "limit" {
			ci.finish = []byte("length")
		}
	}
	return s.end()
}

// llamaTimings reads llama.cpp server's timings object (its /completion
// and its OpenAI endpoints send one): the prompt's and the generation's
// milliseconds.
func (s *scanner) llamaTimings(srv *record.ServerTiming) error {
	if s.peek() != '{' {
		return s.skip()
	}
	return s.object(func(k []byte) error {
		switch string(k) {
		case "prompt_ms":
			return s.msInto(&srv.PromptEvalNS)
		case "predicted_ms":
			return s.msInto(&srv.EvalNS)
		}
		return s.skip()
	})
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
		ci.addText(generated, false, true) // /generate: the whole text at once
	}
	if ci.hasUsage && len(ci.finish) == 0 {
		ci.finish = []byte("stop")
	}
	return s.end()
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
		ci.addText(text[*prev:], false, true)
		*prev = len(text)
	}
	return s.end()
}

// addText adds a generated text (raw, still escaped) to the chunk.
func (c *chunkInfo) addText(v []byte, reasoning, present bool) {
	if !present || len(v) == 0 {
		return
	}
	c.textBytes += len(v)
	if reasoning {
		c.reasonBytes += len(v)
	}
	if c.nTexts < len(c.texts) {
		c.texts[c.nTexts] = v
		c.reasons[c.nTexts] = reasoning
		c.nTexts++
	}
}

// strInto reads a string (or null) into dst.
func (s *scanner) strInto(dst *[]byte) error {
	if s.peek() != '"' {
		return s.skip()
	}
	v, err := s.str()
	*dst = v
	return err
}

// intInto reads a count into dst.
func (s *scanner) intInto(dst *int) error {
	n, err := s.int()
	*dst = n
	return err
}

// msInto reads milliseconds (a number, fractions allowed) into ns.
func (s *scanner) msInto(dst *int64) error {
	start := s.pos
	if err := s.skip(); err != nil {
		return err
	}
	v, err := strconv.ParseFloat(string(s.b[start:s.pos]), 64)
	if err != nil || v < 0 || v > 1e12 {
		return nil // not a duration: left out, as Ollama's odd fields are
	}
	*dst = int64(v * 1e6)
	return nil
}

// objectScanner starts reading one response object into a cleared ci.
func objectScanner(data []byte, ci *chunkInfo) (scanner, error) {
	*ci = chunkInfo{}
	s := scanner{b: data}
	s.ws()
	if s.peek() != '{' {
		return s, fmt.Errorf("%w: want an object at byte %d", errSyntax, s.pos)
	}
	return s, nil
}

// end checks that nothing follows the object.
func (s *scanner) end() error {
	s.ws()
	if s.pos != len(s.b) {
		return fmt.Errorf("%w: trailing bytes at %d", errSyntax, s.pos)
	}
	return nil
}
