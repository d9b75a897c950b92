package report

import "github.com/tpsbench/tpsbench/metrics"

// sessionsGroup is the Markdown table of multi-turn sessions, left out
// when no step ran sessions.
const sessionsGroup = "sessions"

// sessionColumns are a step's sessions' figures (metrics.Sessions).
func sessionColumns() []column {
	count := func(name string, get func(v *metrics.Sessions) int) column {
		return column{name: name, group: sessionsGroup, count: true, num: func(s *metrics.Summary) (float64, bool) {
			if s.Sessions == nil {
				return 0, false
			}
			return float64(get(s.Sessions)), true
		}}
	}
	dist := func(name, unit string, get func(v *metrics.Sessions) metrics.Dist) []column {
		return distColumns(name, sessionsGroup, unit, []string{"p50", "p90", "p99"}, func(s *metrics.Summary) (metrics.Dist, bool) {
			if s.Sessions == nil {
				return metrics.Dist{}, false
			}
			return get(s.Sessions), true
		})
	}
	cols := []column{
		count("sessions", func(v *metrics.Sessions) int { return v.Sessions }),
		count("session_turns", func(v *metrics.Sessions) int { return v.Turns }),
	}
	cols = append(cols, dist("session_duration_s", "s", func(v *metrics.Sessions) metrics.Dist { return v.Duration })...)
	cols = append(cols, dist("session_first_turn_ttft_ms", "ms", func(v *metrics.Sessions) metrics.Dist { return v.FirstTTFT })...)
	return append(cols, dist("session_later_turn_ttft_ms", "ms", func(v *metrics.Sessions) metrics.Dist { return v.LaterTTFT })...)
}
