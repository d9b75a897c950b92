package hftokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites text before it is split, as the tokenizer.json's
// normalizer does; nil leaves it alone.
type normalizer func(string) string

// pattern is a tokenizer.json pattern: a literal string or a regex.
type pattern struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var n struct {
		Type        string            `json:"type"`
		Normalizers []json.RawMessage `json:"normalizers"`
		Prepend     string            `json:"prepend"`
		Pattern     pattern           `json:"pattern"`
		Content     string            `json:"content"`
		Left        bool              `json:"left"`
		Right       bool              `json:"right"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	switch n.Type {
	case "Sequence":
		var seq []normalizer
		for i, r := range n.Normalizers {
			f, err := parseNormalizer(r)
			if err != nil {
				return nil, fmt.Errorf("normalizers[%d]: %w", i, err)
			}
			if f != nil {
				seq = append(seq, f)
			}
		}
		return func(s string) string {
			for _, f := range seq {
				s = f(s)
			}
			return s
		}, nil
	case "Prepend":
		return func(s string) string {
			if s == "" {
				return s
			}
			return n.Prepend + s
		}, nil
	case "Replace":
		re, err := n.Pattern.compile()
		if err != nil {
			return nil, err
		}
		return func(s string) string { return re.replaceAll(s, n.Content) }, nil
	case "NFC":
		return norm.NFC.String, nil
	case "NFD":
		return norm.NFD.String, nil
	case "NFKC":
		return norm.NFKC.String, nil
	case "NFKD":
		return norm.NFKD.String, nil
	case "Lowercase":
		return strings.ToLower, nil
	case "Strip":
		return func(s string) string {
			if n.Left {
				s = strings.TrimLeftFunc(s, unicode.IsSpace)
			}
			if n.Right {
				s = strings.TrimRightFunc(s, unicode.IsSpace)
			}
			return s
		}, nil
	case "StripAccents":
		return func(s string) string {
			return strings.Map(func(r rune) rune {
				if unicode.Is(unicode.Mn, r) {
					return -1
				}
				return r
			}, s)
		}, nil
	}
	return nil, fmt.Errorf("type %q is not supported (supported: Sequence, Prepend, Replace, NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents)", n.Type)
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}
