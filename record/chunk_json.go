package record

import (
	"fmt"
	"strconv"
)

// MarshalJSON writes a chunk as the pair [at, tokens], or [at, tokens,
// kind] for a kind other than the answer, which keeps records with
// thousands of chunks small.
func (c Chunk) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 24)
	b = append(b, '[')
	b = strconv.AppendInt(b, c.At, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(c.Tokens), 10)
	if c.Kind != ChunkAnswer {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c.Kind), 10)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads [at, tokens] or [at, tokens, kind].
func (c *Chunk) UnmarshalJSON(b []byte) error {
	var vals [3]int64
	n := 0
	pos := 0
	bad := func() error { return fmt.Errorf("chunk: want [at,tokens] or [at,tokens,kind], got %.40q", b) }
	skipSpace := func() {
		for pos < len(b) && (b[pos] == ' ' || b[pos] == '\t' || b[pos] == '\n' || b[pos] == '\r') {
			pos++
		}
	}
	skipSpace()
	if pos >= len(b) || b[pos] != '[' {
		return bad()
	}
	pos++
	for {
		skipSpace()
		start := pos
		if pos < len(b) && b[pos] == '-' {
			pos++
		}
		for pos < len(b) && b[pos] >= '0' && b[pos] <= '9' {
			pos++
		}
		v, err := strconv.ParseInt(string(b[start:pos]), 10, 64)
		if err != nil || n == len(vals) {
			return bad()
		}
		vals[n] = v
		n++
		skipSpace()
		if pos >= len(b) {
			return bad()
		}
		if b[pos] == ']' {
			pos++
			break
		}
		if b[pos] != ',' {
			return bad()
		}
		pos++
	}
	skipSpace()
	if pos != len(b) || n < 2 {
		return bad()
	}
	if vals[1] < 0 || vals[1] > 1<<31-1 {
		return fmt.Errorf("chunk: token count %d out of range", vals[1])
	}
	if vals[2] < 0 || vals[2] >= int64(numChunkKinds) {
		return fmt.Errorf("chunk: kind %d is not 0 (answer), 1 (reasoning) or 2 (tool call)", vals[2])
	}
	c.At, c.Tokens, c.Kind = vals[0], int(vals[1]), ChunkKind(vals[2])
	return nil
}
