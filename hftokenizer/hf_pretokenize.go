package hftokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is a part of the text the model encodes on its own. first marks
// the piece that starts the text, which Metaspace's "first" scheme
// prefixes.
type piece struct {
	text  string
	first bool
}

// preTokenizer splits pieces into smaller ones, as the tokenizer.json's
// pre_tokenizer does.
type preTokenizer func([]piece) []piece

// gpt2Split is the ByteLevel pre-tokenizer's own pattern.
const gpt2Split = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// parsePreTokenizer reads a tokenizer.json's pre_tokenizer (nil for
// none), refusing a type it cannot do exactly.
func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var p struct {
		Type             string            `json:"type"`
		PreTokenizers    []json.RawMessage `json:"pretokenizers"`
		Pattern          pattern           `json:"pattern"`
		Behavior         string            `json:"behavior"`
		Invert           bool              `json:"invert"`
		AddPrefixSpace   *bool             `json:"add_prefix_space"`
		UseRegex         *bool             `json:"use_regex"`
		Replacement      string            `json:"replacement"`
		PrependScheme    string            `json:"prepend_scheme"`
		Split            *bool             `json:"split"`
		IndividualDigits bool              `json:"individual_digits"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	switch p.Type {
	case "Sequence":
		return sequence(p.PreTokenizers)
	case "Split":
		m, err := p.Pattern.compile()
		if err != nil {
			return nil, err
		}
		if err := checkBehavior(p.Behavior); err != nil {
			return nil, err
		}
		return eachPiece(func(pc piece) []piece { return splitBy(pc, m.find(pc.text), p.Behavior, p.Invert) }), nil
	case "ByteLevel":
		return byteLevelPre(p.AddPrefixSpace != nil && *p.AddPrefixSpace, p.UseRegex == nil || *p.UseRegex), nil
	case "Metaspace":
		return metaspace(p.Replacement, p.PrependScheme, p.AddPrefixSpace, p.Split)
	case "Digits":
		behavior := "Contiguous"
		if p.IndividualDigits {
			behavior = "Isolated"
		}
		return eachPiece(func(pc piece) []piece {
			return splitBy(pc, runsOf(pc.text, unicode.IsNumber, !p.IndividualDigits), behavior, false)
		}), nil
	case "Whitespace":
		m, _ := pattern{Regex: ptr(`\w+|[^\w\s]+`)}.compile()
		return eachPiece(func(pc piece) []piece { return splitBy(pc, m.find(pc.text), "Removed", true) }), nil
	case "WhitespaceSplit":
		return eachPiece(func(pc piece) []piece { return splitBy(pc, runsOf(pc.text, unicode.IsSpace, true), "Removed", false) }), nil
	case "Punctuation":
		behavior := p.Behavior
		if behavior == "" {
			behavior = "Isolated"
		}
		if err := checkBehavior(behavior); err != nil {
			return nil, err
		}
		return eachPiece(func(pc piece) []piece { return splitBy(pc, runsOf(pc.text, isPunct, false), behavior, false) }), nil
	case "BertPreTokenizer":
		return eachPiece(func(pc piece) []piece {
			var out []piece
			for _, w := range splitBy(pc, runsOf(pc.text, unicode.IsSpace, true), "Removed", false) {
				out = append(out, splitBy(w, runsOf(w.text, isPunct, false), "Isolated", false)...)
			}
			return out
		}), nil
	}
	return nil, fmt.Errorf("type %q is not supported (supported: Sequence, Split, ByteLevel, Metaspace, Digits, Whitespace, WhitespaceSplit, Punctuation, BertPreTokenizer)", p.Type)
}

// sequence runs the pre-tokenizers raws describe one after another.
func sequence(raws []json.RawMessage) (preTokenizer, error) {
	var seq []preTokenizer
	for i, r := range raws {
		f, err := parsePreTokenizer(r)
		if err != nil {
			return nil, fmt.Errorf("pretokenizers[%d]: %w", i, err)
		}
		if f != nil {
			seq = append(seq, f)
		}
	}
	return func(ps []piece) []piece {
		for _, f := range seq {
			ps = f(ps)
		}
		return ps
	}, nil
}

// byteLevelPre is the ByteLevel pre-tokenizer: a space before the text
// (prefix), GPT-2's split (useRegex), then each byte as its character.
func byteLevelPre(prefix, useRegex bool) preTokenizer {
	var split *matcher
	if useRegex {
		split, _ = pattern{Regex: ptr(gpt2Split)}.compile()
	}
	return eachPiece(func(pc piece) []piece {
		if prefix && !strings.HasPrefix(pc.text, " ") {
			pc.text = " " + pc.text
		}
		out := []piece{pc}
		if split != nil {
			out = splitBy(pc, split.find(pc.text), "Isolated", false)
		}
		for i := range out {
			out[i].text = byteLevel(out[i].text)
		}
		return out
	})
}

func metaspace(replacement, scheme string, addPrefixSpace, split *bool) (preTokenizer, error) {
	if replacement == "" {
		replacement = "▁"
	}
	if scheme == "" {
		// files from before prepend_scheme say add_prefix_space
		scheme = "always"
		if addPrefixSpace != nil && !*addPrefixSpace {
			scheme = "never"
		}
	}
	if scheme != "always" && scheme != "first" && scheme != "never" {
		return nil, fmt.Errorf("prepend_scheme %q: want always, first or never", scheme)
	}
	doSplit := split == nil || *split
	return eachPiece(func(pc piece) []piece {
		pc.text = strings.ReplaceAll(pc.text, " ", replacement)
		if (scheme == "always" || scheme == "first" && pc.first) && !strings.HasPrefix(pc.text, replacement) {
			pc.text = replacement + pc.text
		}
		if !doSplit {
			return []piece{pc}
		}
		return splitBy(pc, (&matcher{literal: replacement}).find(pc.text), "MergedWithNext", false)
	}), nil
}

func eachPiece(f func(piece) []piece) preTokenizer {
	return func(ps []piece) []piece {
		var out []piece
		for _, p := range ps {
			out = append(out, f(p)...)
		}
		return out
	}
}

func checkBehavior(b string) error {
	switch b {
	case "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous":
		return nil
	}
	return fmt.Errorf("behavior %q: want Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous", b)
}

// splitBy cuts a piece at the matches (byte ranges) and deals each match
// to a side as the Rust tokenizers' split behaviours do; empty pieces go.
func splitBy(p piece, matches [][2]int, behavior string, invert bool) []piece {
	type span struct {
		start, end int
		match      bool
	}
	var spans []span
	last := 0
	for _, m := range matches {
		if m[0] > last {
			spans = append(spans, span{last, m[0], invert})
		}
		spans = append(spans, span{m[0], m[1], !invert})
		last = m[1]
	}
	if last < len(p.text) {
		spans = append(spans, span{last, len(p.text), invert})
	}
	var kept []span
	switch behavior {
	case "Removed":
		for _, s := range spans {
			if !s.match {
				kept = append(kept, s)
			}
		}
	case "Isolated":
		kept = spans
	case "MergedWithPrevious":
		prevMatch := false
		for _, s := range spans {
			if s.match && !prevMatch && len(kept) > 0 {
				kept[len(kept)-1].end = s.end
			} else {
				kept = append(kept, s)
			}
			prevMatch = s.match
		}
	case "MergedWithNext":
		prevMatch := false
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			if s.match && !prevMatch && len(kept) > 0 {
				kept[len(kept)-1].start = s.start
			} else {
				kept = append(kept, s)
			}
			prevMatch = s.match
		}
		for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
			kept[i], kept[j] = kept[j], kept[i]
		}
	case "Contiguous":
		prevMatch := false
		for i, s := range spans {
			if i > 0 && s.match == prevMatch {
				kept[len(kept)-1].end = s.end
			} else {
				kept = append(kept, s)
			}
			prevMatch = s.match
		}
	}
	out := make([]piece, 0, len(kept))
	for _, s := range kept {
		if s.end > s.start {
			out = append(out, piece{p.text[s.start:s.end], p.first && s.start == 0})
		}
	}
	return out
}

// runsOf gives the byte ranges of the characters where is holds: each
// character alone, or runs of them when together.
func runsOf(s string, is func(rune) bool, together bool) [][2]int {
	var out [][2]int
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		if !is(r) {
			continue
		}
		end := i + w
		if together && len(out) > 0 && out[len(out)-1][1] == i {
			out[len(out)-1][1] = end
			continue
		}
		out = append(out, [2]int{i, end})
	}
	return out
}

func isPunct(r rune) bool { return unicode.IsPunct(r) || r < 128 && unicode.IsSymbol(r) }

func ptr[T any](v T) *T { return &v }
