package client

import (
	"fmt"
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
