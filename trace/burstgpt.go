package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/record"
)

// maxBurstGPTField bounds a BurstGPT field (a number, a model's name).
const maxBurstGPTField = 1 << 10

// burstGPT reads BurstGPT's CSV (Timestamp, Model, Request tokens,
// Response tokens, Total tokens, Log Type): its arrivals in seconds after
// the log's start. A row without response tokens is a request that failed
// in the log: it is skipped and counted, as there is no answer length to
// ask for.
type burstGPT struct {
	r     *csv.Reader
	name  string
	stats *Stats
	// columns of the fields read, from the header
	at, in, out int
	line        int
}

// burstGPTColumns are the header names read, in lower case.
var burstGPTColumns = [...]string{"timestamp", "request tokens", "response tokens"}

func newBurstGPT(r io.Reader, name string, stats *Stats) (*burstGPT, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // checked below, with the line named
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the header: %w", name, err)
	}
	b := &burstGPT{r: cr, name: name, stats: stats, line: 1}
	idx := map[string]int{}
	for i, h := range head {
		idx[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")))] = i
	}
	cols := make([]int, len(burstGPTColumns))
	for i, c := range burstGPTColumns {
		j, ok := idx[c]
		if !ok {
			return nil, fmt.Errorf("%s: a BurstGPT trace has a %q column; the header is %q", name, c, strings.Join(head, ","))
		}
		cols[i] = j
	}
	b.at, b.in, b.out = cols[0], cols[1], cols[2]
	return b, nil
}

func (b *burstGPT) next(e *Entry) (int64, error) {
	for {
		row, err := b.r.Read()
		b.line++
		switch {
		case errors.Is(err, io.EOF):
			return 0, io.EOF
		case err != nil:
			return 0, fmt.Errorf("%s:%d: %w", b.name, b.line, err)
		}
		arrival, in, out, err := b.parse(row)
		if err != nil {
			return 0, fmt.Errorf("%s:%d: %w", b.name, b.line, err)
		}
		if out == 0 {
			b.stats.Skipped++ // failed in the log: no answer length
			continue
		}
		*e = Entry{Line: b.line, InputTokens: in, OutputTokens: out}
		return arrival, nil
	}
}

// parse reads a row's arrival (ns), request and response tokens.
func (b *burstGPT) parse(row []string) (arrival int64, in, out int, err error) {
	field := func(i int) (string, error) {
		if i >= len(row) {
			return "", fmt.Errorf("%d fields, the header has more", len(row))
		}
		if len(row[i]) > maxBurstGPTField {
			return "", fmt.Errorf("a field of %d bytes", len(row[i]))
		}
		return strings.TrimSpace(row[i]), nil
	}
	ts, err := field(b.at)
	if err != nil {
		return 0, 0, 0, err
	}
	secs, err := strconv.ParseFloat(ts, 64)
	if err != nil || !(secs >= 0 && secs <= maxTimestampMS/1e3) {
		return 0, 0, 0, fmt.Errorf("timestamp %q: want seconds from 0 to %g", ts, maxTimestampMS/1e3)
	}
	count := func(i int, what string, least int) (int, error) {
		s, err := field(i)
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseFloat(s, 64) // some exports write 12.0
		if err != nil || n != math.Trunc(n) || n < float64(least) || n > record.MaxTokens {
			return 0, fmt.Errorf("%s %q: want a whole number from %d to %d", what, s, least, record.MaxTokens)
		}
		return int(n), nil
	}
	if in, err = count(b.in, "request tokens", 1); err != nil {
		return 0, 0, 0, err
	}
	if out, err = count(b.out, "response tokens", 0); err != nil {
		return 0, 0, 0, err
	}
	return int64(math.Round(secs * 1e9)), in, out, nil
}
