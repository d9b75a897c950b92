package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tpsbench/tpsbench/record"
)

// chunkInfo is what tpsbench needs from one OpenAI response object (a
// streamed chunk or a whole non-streamed response). The byte slices point
// into the scanned data.
type chunkInfo struct {
	textBytes   int  // raw bytes of generated text: content, reasoning, completion text
	reasonBytes int  // the part of textBytes that was reasoning text
	choices     bool // a non-empty choices array (a role-only or finish-only event has one)
	toolCall    bool // a tool-call (or legacy function-call) delta
	emptyToken  bool // a token whose text is empty (TGI streams one an event)
	hasUsage    bool
	prompt      int // usage.prompt_tokens
	completion  int // usage.completion_tokens
	reasoning   int // usage.completion_tokens_details.reasoning_tokens
	cached      int // usage.prompt_tokens_details.cached_tokens: the prompt's tokens the server's cache held
	id          []byte
	finish      []byte
	errMsg      []byte // non-nil when the object carries an error
	hasError    bool
	last        bool      // the stream's last event: what follows it is not the response (Responses' response.completed)
	texts       [3][]byte // raw (still escaped) text strings, for showing tokens
	reasons     [3]bool   // which of texts are reasoning
	nTexts      int
	answers     int // the answers an outputless API gave: embeddings, scores
}

// tokenBearing reports whether the chunk carries at least one output token.
func (c *chunkInfo) tokenBearing() bool { return c.textBytes > 0 || c.toolCall || c.emptyToken }

// kind is what the chunk's tokens were: answer when it has any answer
// text (a chunk where the reasoning ends and the answer begins is an
// answer chunk), reasoning when its only text is reasoning, else a tool
// call.
func (c *chunkInfo) kind() record.ChunkKind {
	switch {
	case c.textBytes > c.reasonBytes:
		return record.ChunkAnswer
	case c.reasonBytes > 0:
		return record.ChunkReasoning
	case c.toolCall:
		return record.ChunkToolCall
	}
	return record.ChunkAnswer
}

// text decodes the chunk's generated text (it allocates; only for display
// and client tokenizers).
func (c *chunkInfo) text() string { return c.textOf(true, true) }

// textOf decodes the chunk's answer text, reasoning text, or both.
func (c *chunkInfo) textOf(answer, reasoning bool) string {
	var out []byte
	for i := 0; i < c.nTexts; i++ {
		if c.reasons[i] && reasoning || !c.reasons[i] && answer {
			out = append(out, unquote(c.texts[i])...)
		}
	}
	return string(out)
}

func unquote(raw []byte) string {
	q := make([]byte, 0, len(raw)+2)
	q = append(q, '"')
	q = append(q, raw...)
	q = append(q, '"')
	var s string
	if json.Unmarshal(q, &s) != nil {
		return string(raw)
	}
	return s
}

var errSyntax = errors.New("invalid JSON")

// errTooDeep is valid JSON nested past maxDepth.
var errTooDeep = fmt.Errorf("%w: nested deeper than %d levels", errSyntax, maxDepth)

// maxDepth bounds how deeply objects and arrays may nest in one response
// object. Real chunks nest five levels; the scanner recurses once a level,
// so an unbounded depth lets one hostile event exhaust the stack, which Go
// cannot recover from. encoding/json allows 10,000; a chunk needs far less.
const maxDepth = 64

// scanner walks JSON without building values and without allocating. It
// checks structure as it goes, so malformed input is reported, not guessed at.
type scanner struct {
	b     []byte
	pos   int
	depth int // objects and arrays open at pos
}

// enter opens one level of nesting, refusing to go past maxDepth.
func (s *scanner) enter() error {
	if s.depth >= maxDepth {
		return fmt.Errorf("%w at byte %d", errTooDeep, s.pos)
	}
	s.depth++
	return nil
}

// scanChunk extracts a chunkInfo from one OpenAI response object.
func scanChunk(data []byte, ci *chunkInfo) error { return scanOpenAI(data, ci, nil) }

// scanOpenAI is scanChunk keeping, into srv when it is not nil, the
// timings llama.cpp's server adds to its OpenAI answers.
func scanOpenAI(data []byte, ci *chunkInfo, srv *record.ServerTiming) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "id":
			if s.peek() == '"' {
				v, err := s.str()
				ci.id = v
				return err
			}
		case "choices":
			if s.peek() == '[' {
				return s.array(func() error { ci.choices = true; return s.choice(ci) })
			}
		case "timings":
			if srv != nil {
				return s.llamaTimings(srv)
			}
		case "usage":
			if s.peek() == '{' {
				// a usage is a count of output tokens only where it has one: a
				// completion_tokens of null (or none) counts nothing, not 0
				return s.object(func(k []byte) error {
					switch string(k) {
					case "prompt_tokens":
						n, err := s.int()
						ci.prompt = n
						return err
					case "completion_tokens":
						if s.peek() == 'n' {
							return s.skip()
						}
						n, err := s.int()
						ci.completion, ci.hasUsage = n, true
						return err
					case "completion_tokens_details":
						if s.peek() == '{' {
							return s.object(func(d []byte) error {
								if string(d) == "reasoning_tokens" {
									n, err := s.int()
									ci.reasoning = n
									return err
								}
								return s.skip()
							})
						}
					case "prompt_tokens_details":
						return s.cachedTokens(ci, "cached_tokens")
					}
					return s.skip()
				})
			}
		case "error":
			ci.hasError = true
			switch s.peek() {
			case '{':
				return s.object(func(k []byte) error {
					if string(k) == "message" && s.peek() == '"' {
						v, err := s.str()
						ci.errMsg = v
						return err
					}
					return s.skip()
				})
			case '"':
				v, err := s.str()
				ci.errMsg = v
				return err
			case 'n': // "error": null
				ci.hasError = false
			}
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	return s.end()
}

func (s *scanner) choice(ci *chunkInfo) error {
	if s.peek() != '{' {
		return s.skip()
	}
	return s.object(func(key []byte) error {
		switch string(key) {
		case "delta", "message":
			if s.peek() == '{' {
				return s.object(func(k []byte) error {
					switch string(k) {
					case "content":
						return s.text(ci, false)
					case "reasoning_content", "reasoning":
						return s.text(ci, true)
					case "tool_calls":
						if s.peek() == '[' {
							n := 0
							err := s.array(func() error { n++; return s.skip() })
							if n > 0 {
								ci.toolCall = true
							}
							return err
						}
					case "function_call":
						if s.peek() == '{' {
							ci.toolCall = true
						}
					}
					return s.skip()
				})
			}
		case "text":
			return s.text(ci, false)
		case "finish_reason":
			if s.peek() == '"' {
				v, err := s.str()
				ci.finish = v
				return err
			}
		}
		return s.skip()
	})
}

// text reads a generated-text field (a string or null), of reasoning or
// of the answer.
func (s *scanner) text(ci *chunkInfo, reasoning bool) error {
	if s.peek() != '"' {
		return s.skip()
	}
	v, err := s.str()
	if err != nil {
		return err
	}
	ci.addText(v, reasoning)
	return nil
}

// unexpected is the syntax error at s.pos, where what was wanted: the
// end of the input where the input ended (a body cut short), else the
// byte's place.
func (s *scanner) unexpected(what string) error {
	if s.pos >= len(s.b) {
		return fmt.Errorf("%w: unexpected end of input after %d bytes (%s)", errSyntax, len(s.b), what)
	}
	return fmt.Errorf("%w: %s at byte %d", errSyntax, what, s.pos)
}

func (s *scanner) peek() byte {
	if s.pos < len(s.b) {
		return s.b[s.pos]
	}
	return 0
}

func (s *scanner) ws() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// object walks an object, calling fn with each key with the scanner placed
// at the value (after whitespace); fn must consume the value.
func (s *scanner) object(fn func(key []byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // '{'
	s.ws()
	if s.peek() == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.ws()
		if s.peek() != '"' {
			return s.unexpected("want a key")
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if s.peek() != ':' {
			return s.unexpected("want ':'")
		}
		s.pos++
		s.ws()
		if err := fn(key); err != nil {
			return err
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return s.unexpected("want ',' or '}'")
		}
	}
}

// array walks an array, calling fn at each element (after whitespace).
func (s *scanner) array(fn func() error) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // '['
	s.ws()
	if s.peek() == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.ws()
		if err := fn(); err != nil {
			return err
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return s.unexpected("want ',' or ']'")
		}
	}
}

// str reads a string and returns its raw contents (escapes not decoded).
func (s *scanner) str() ([]byte, error) {
	start := s.pos + 1
	i := start
	for i < len(s.b) {
		switch c := s.b[i]; {
		case c == '"':
			s.pos = i + 1
			return s.b[start:i], nil
		case c == '\\':
			i += 2
		case c < 0x20:
			return nil, fmt.Errorf("%w: control character in string at byte %d", errSyntax, i)
		default:
			i++
		}
	}
	s.pos = len(s.b) // the string ran on to the end
	return nil, s.unexpected("in a string")
}

// int reads a non-negative integer (or null, as 0).
func (s *scanner) int() (int, error) {
	if s.peek() == 'n' {
		return 0, s.skip()
	}
	start := s.pos
	n := 0
	for s.pos < len(s.b) && s.b[s.pos] >= '0' && s.b[s.pos] <= '9' {
		if n > (1<<31)/10 {
			return 0, fmt.Errorf("%w: number too large at byte %d", errSyntax, start)
		}
		n = n*10 + int(s.b[s.pos]-'0')
		s.pos++
	}
	if s.pos == start {
		return 0, s.unexpected("want a count")
	}
	return n, nil
}

// jsonNumber reports whether b is a number as JSON writes one:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, without allocating.
func jsonNumber(b []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// skip consumes one value of any type.
func (s *scanner) skip() error {
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) error { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == '"':
		_, err := s.str()
		return err
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		for s.pos < len(s.b) && isNumberByte(s.b[s.pos]) {
			s.pos++
		}
		if !jsonNumber(s.b[start:s.pos]) {
			if s.pos == len(s.b) { // cut inside it
				return s.unexpected("in a number")
			}
			return fmt.Errorf("%w: bad number at byte %d", errSyntax, start)
		}
		return nil
	default:
		return s.unexpected(fmt.Sprintf("unexpected %q", c))
	}
}

func (s *scanner) lit(word string) error {
	if rest := s.b[s.pos:]; len(rest) < len(word) && string(rest) == word[:len(rest)] {
		s.pos = len(s.b)
		return s.unexpected("want " + word)
	}
	if len(s.b)-s.pos < len(word) || string(s.b[s.pos:s.pos+len(word)]) != word {
		return fmt.Errorf("%w: want %s at byte %d", errSyntax, word, s.pos)
	}
	s.pos += len(word)
	return nil
}

func isNumberByte(d byte) bool {
	return (d >= '0' && d <= '9') || d == '-' || d == '+' || d == '.' || d == 'e' || d == 'E'
}
