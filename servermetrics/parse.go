// Package servermetrics reads a server's own Prometheus metrics (vLLM,
// SGLang, TGI, the tpsbench engine) around each step, so that reports can
// set the server's view next to the client's.
package servermetrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Sample is a scrape: every series' value, keyed by metric name, summed
// over label sets except le (histogram buckets are not kept).
type Sample map[string]float64

// Parse reads the Prometheus text exposition format. Lines that do not
// parse are reported with their number.
func Parse(r io.Reader) (Sample, error) {
	s := Sample{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest := line, ""
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name, rest = line[:i], line[i:]
		}
		if strings.HasPrefix(rest, "{") {
			end := labelsEnd(rest)
			if end < 0 {
				return nil, fmt.Errorf("metrics line %d: unterminated labels", n)
			}
			rest = rest[end+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("metrics line %d: no value", n)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d: value %q", n, fields[0])
		}
		if strings.HasSuffix(name, "_bucket") {
			continue
		}
		s[name] += v
		if averaged[name] {
			s[name+seriesCount]++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("metrics line %d: %w", n+1, err)
	}
	// NaN and the infinities are no count (Prometheus allows them; a
	// report cannot hold them): such a series is left out, as if absent,
	// as is a sum that overflowed
	for name, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(s, name)
		}
	}
	return s, nil
}

// labelsEnd finds the closing brace of a label set, skipping quoted values.
func labelsEnd(s string) int {
	quoted := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == '}' && !quoted:
			return i
		}
	}
	return -1
}

// averaged names the gauges read as a mean over their label sets, not a
// sum: SGLang reports its speculative acceptance once a rank.
var averaged = map[string]bool{"sglang:spec_accept_length": true, "sglang:spec_accept_rate": true}

// seriesCount keys, after an averaged gauge's name, how many label sets
// it had; a space is in no metric name.
const seriesCount = " series"

// mean returns an averaged gauge's mean over its label sets.
func (s Sample) mean(name string) (float64, bool) {
	v, ok := s[name]
	n := s[name+seriesCount]
	if !ok || n == 0 {
		return 0, false
	}
	return v / n, true
}

// first returns the value of the first of names present in the sample.
func (s Sample) first(names ...string) (float64, bool) {
	for _, n := range names {
		if v, ok := s[n]; ok {
			return v, true
		}
	}
	return 0, false
}
