package record

import (
	"fmt"
	"strconv"
)

// MarshalJSON writes a chunk as the pair [at, tokens], which keeps records
// with thousands of chunks small.
func (c Chunk) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 24)
	b = append(b, '[')
	b = strconv.AppendInt(b, c.At, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(c.Tokens), 10)
	return append(b, ']'), nil
}

// UnmarshalJSON reads the pair [at, tokens].
func (c *Chunk) UnmarshalJSON(b []byte) error {
	var pair [2]int64
	i := 0
	pos := 0
	skipSpace := func() {
		for pos < len(b) && (b[pos] == ' ' || b[pos] == '\t' || b[pos] == '\n' || b[pos] == '\r') {
			pos++
		}
	}
	skipSpace()
	if pos >= len(b) || b[pos] != '[' {
		return fmt.Errorf("chunk: want [at,tokens], got %.40q", b)
	}
	pos++
	for i < 2 {
		skipSpace()
		start := pos
		if pos < len(b) && b[pos] == '-' {
			pos++
		}
		for pos < len(b) && b[pos] >= '0' && b[pos] <= '9' {
			pos++
		}
		v, err := strconv.ParseInt(string(b[start:pos]), 10, 64)
		if err != nil {
			return fmt.Errorf("chunk: want [at,tokens], got %.40q", b)
		}
		pair[i] = v
		i++
		skipSpace()
		want := byte(',')
		if i == 2 {
			want = ']'
		}
		if pos >= len(b) || b[pos] != want {
			return fmt.Errorf("chunk: want [at,tokens], got %.40q", b)
		}
		pos++
	}
	skipSpace()
	if pos != len(b) {
		return fmt.Errorf("chunk: want [at,tokens], got %.40q", b)
	}
	if pair[1] < 0 || pair[1] > 1<<31-1 {
		return fmt.Errorf("chunk: token count %d out of range", pair[1])
	}
	c.At, c.Tokens = pair[0], int(pair[1])
	return nil
}
