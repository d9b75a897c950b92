package hftokenizer

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// matcher finds a tokenizer.json pattern in text. Patterns are written for
// Oniguruma (the Rust tokenizers' engine); regexp2 reads the same syntax
// where tokenizers use it, lookahead included, which Go's regexp lacks.
type matcher struct {
	literal string
	re      *regexp2.Regexp
}

func (p pattern) compile() (*matcher, error) {
	switch {
	case p.String != nil && *p.String != "":
		return &matcher{literal: *p.String}, nil
	case p.String != nil:
		return nil, errors.New("empty pattern")
	case p.Regex != nil:
		re, err := regexp2.Compile(*p.Regex, regexp2.None)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", *p.Regex, err)
		}
		// a backtracking engine: a pathological pattern gives up rather
		// than hang the run
		re.MatchTimeout = 10 * time.Second
		return &matcher{re: re}, nil
	}
	return nil, errors.New("pattern wants String or Regex")
}

// find gives the byte ranges of the non-empty, non-overlapping matches.
func (m *matcher) find(s string) [][2]int {
	var out [][2]int
	if m.re == nil {
		for i := 0; ; {
			j := strings.Index(s[i:], m.literal)
			if j < 0 {
				return out
			}
			out = append(out, [2]int{i + j, i + j + len(m.literal)})
			i += j + len(m.literal)
		}
	}
	runes := []rune(s)
	// offsets[k] is the byte offset of rune k; []rune turns each invalid
	// byte into one rune, as DecodeRuneInString steps one byte over it.
	offsets := make([]int, 0, len(runes)+1)
	for i := 0; i < len(s); {
		offsets = append(offsets, i)
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	offsets = append(offsets, len(s))
	match, err := m.re.FindRunesMatch(runes)
	for err == nil && match != nil {
		if match.Length > 0 {
			out = append(out, [2]int{offsets[match.Index], offsets[match.Index+match.Length]})
		}
		match, err = m.re.FindNextMatch(match)
	}
	return out
}

func (m *matcher) replaceAll(s, with string) string {
	found := m.find(s)
	if len(found) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, f := range found {
		b.WriteString(s[last:f[0]])
		b.WriteString(with)
		last = f[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
