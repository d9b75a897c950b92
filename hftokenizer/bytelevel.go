package hftokenizer

import "strings"

// byteChar maps each byte to the printable character GPT-2's byte-level
// vocabularies spell it with: printable Latin-1 stays itself, the rest
// moves to U+0100 onwards in byte order.
var byteChar = func() (m [256]rune) {
	next := rune(256)
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			m[b] = rune(b)
		} else {
			m[b] = next
			next++
		}
	}
	return m
}()

// byteLevel spells a string's bytes in byte-level characters.
func byteLevel(s string) string {
	var b strings.Builder
	b.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		b.WriteRune(byteChar[s[i]])
	}
	return b.String()
}
