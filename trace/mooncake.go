package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/tpsbench/tpsbench/record"
)

// maxMooncakeLine bounds a Mooncake line: 128k tokens of 512-token blocks
// take 256 ids; a megabyte is far past any real line.
const maxMooncakeLine = 1 << 20

// maxTimestampMS bounds a Mooncake timestamp (ms): about 30 years, so that
// offsets in ns cannot overflow.
const maxTimestampMS = 1e12

// mooncake reads Mooncake's JSONL: one request a line, its arrival in ms
// after the trace's start.
type mooncake struct {
	sc   *bufio.Scanner
	name string
	line int
}

func newMooncake(r io.Reader, name string) *mooncake {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxMooncakeLine+1) // a line of the bound, with its newline
	return &mooncake{sc: sc, name: name}
}

type mooncakeLine struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int64   `json:"input_length"`
	OutputLength *int64   `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
}

func (m *mooncake) next(e *Entry) (int64, error) {
	for m.sc.Scan() {
		m.line++
		if len(m.sc.Bytes()) > maxMooncakeLine { // a last line, without a newline, one byte past
			return 0, fmt.Errorf("%s:%d: a line over %d bytes is not a Mooncake trace line", m.name, m.line, maxMooncakeLine)
		}
		b := bytes.TrimSpace(m.sc.Bytes())
		if m.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\uFEFF"))
		}
		if len(b) == 0 {
			continue
		}
		arrival, err := parseMooncake(b, e)
		if err != nil {
			return 0, fmt.Errorf("%s:%d: %w", m.name, m.line, err)
		}
		e.Line = m.line
		return arrival, nil
	}
	if err := m.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return 0, fmt.Errorf("%s:%d: a line over %d bytes is not a Mooncake trace line", m.name, m.line+1, maxMooncakeLine)
		}
		return 0, fmt.Errorf("reading %s: %w", m.name, err)
	}
	return 0, io.EOF
}

// parseMooncake reads one line into e and returns its arrival in ns.
func parseMooncake(b []byte, e *Entry) (int64, error) {
	var l mooncakeLine
	if err := json.Unmarshal(b, &l); err != nil {
		return 0, fmt.Errorf("not a Mooncake trace line (%v): %.80q", err, b)
	}
	switch {
	case l.Timestamp == nil || l.InputLength == nil || l.OutputLength == nil:
		return 0, errors.New("a Mooncake trace line needs timestamp, input_length and output_length")
	case !(*l.Timestamp >= 0 && *l.Timestamp <= maxTimestampMS):
		return 0, fmt.Errorf("timestamp %g: want milliseconds from 0 to %g", *l.Timestamp, maxTimestampMS)
	case *l.InputLength < 1 || *l.InputLength > record.MaxTokens:
		return 0, fmt.Errorf("input_length %d: want 1 to %d tokens", *l.InputLength, record.MaxTokens)
	case *l.OutputLength < 1 || *l.OutputLength > record.MaxTokens:
		return 0, fmt.Errorf("output_length %d: want 1 to %d tokens", *l.OutputLength, record.MaxTokens)
	case int64(len(l.HashIDs)) > *l.InputLength:
		return 0, fmt.Errorf("%d hash_ids for %d input tokens: a block holds at least one", len(l.HashIDs), *l.InputLength)
	}
	*e = Entry{InputTokens: int(*l.InputLength), OutputTokens: int(*l.OutputLength), BlockTokens: MooncakeBlockTokens}
	e.Blocks = make([]uint64, len(l.HashIDs))
	for i, id := range l.HashIDs {
		if id < 0 {
			return 0, fmt.Errorf("hash_ids[%d] = %d: want ids from 0", i, id)
		}
		e.Blocks[i] = uint64(id)
	}
	return int64(math.Round(*l.Timestamp * 1e6)), nil
}
