package client

import (
	"fmt"
	"slices"
	"strconv"
)

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

// addText adds a generated text (raw, still escaped) to the chunk.
func (c *chunkInfo) addText(v []byte, reasoning bool) {
	if len(v) == 0 {
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

// cachedTokens reads a usage details object for its count of cached
// prompt tokens (field).
func (s *scanner) cachedTokens(ci *chunkInfo, field string) error {
	if s.peek() != '{' {
		return s.skip()
	}
	return s.object(func(d []byte) error {
		if string(d) == field {
			return s.intInto(&ci.cached)
		}
		return s.skip()
	})
}

// scanTopObject reads one answer object into a cleared ci: field reads
// the keys an API knows (ok false: not one of them), and every API's
// id, error (null for none) and end are read here.
func scanTopObject(data []byte, ci *chunkInfo, field func(s *scanner, key string) (ok bool, err error)) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	err = s.object(func(key []byte) error {
		if ok, err := field(&s, string(key)); ok {
			return err
		}
		switch string(key) {
		case "id":
			if s.peek() == '"' {
				return s.strInto(&ci.id)
			}
		case "error":
			if s.peek() == 'n' { // "error": null
				return s.skip()
			}
			ci.hasError = true
			return s.errorValue(ci)
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	return s.end()
}

// answersScanner reads the answer of an API that generates nothing
// (embeddings, rerank): under one of lists, an array of objects, each an
// answer when it holds a key that answer takes (with the byte its value
// starts with), counted, not kept; and the usage.
func answersScanner(lists []string, answer func(key []byte, value byte) bool) scanFunc {
	return func(data []byte, ci *chunkInfo) error {
		return scanTopObject(data, ci, func(s *scanner, key string) (bool, error) {
			switch {
			case key == "usage":
				return true, s.outputlessUsage(ci)
			case !slices.Contains(lists, key) || s.peek() != '[':
				return false, nil
			}
			return true, s.array(func() error {
				if s.peek() != '{' {
					return s.skip()
				}
				return s.object(func(k []byte) error {
					if answer(k, s.peek()) {
						ci.answers++
					}
					return s.skip()
				})
			})
		})
	}
}

// outputlessUsage reads the usage of an answer that generated nothing:
// its prompt tokens, or its total tokens where it gives only those (a
// rerank's), which are the same.
func (s *scanner) outputlessUsage(ci *chunkInfo) error {
	if s.peek() != '{' {
		return s.skip()
	}
	ci.hasUsage = true
	total := 0
	err := s.object(func(k []byte) error {
		switch string(k) {
		case "prompt_tokens":
			return s.intInto(&ci.prompt)
		case "total_tokens":
			return s.intInto(&total)
		}
		return s.skip()
	})
	if ci.prompt == 0 {
		ci.prompt = total
	}
	return err
}
