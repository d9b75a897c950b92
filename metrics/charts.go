package metrics

import "github.com/tpsbench/tpsbench/record"

// Charts holds what reports draw beyond the summary figures. Its size is
// bounded whatever the run's length (CDFs at fixed quantiles; rolling
// series are downsampled by the renderer; failure marks are capped).
type Charts struct {
	// CDF of each distribution: points (value, quantile 0-1), values in
	// the summary's units (ms, tokens/s).
	CDF map[string][]Point `json:"cdf"`
	// Rolling TPS, one point per RollingStepMS (100 ms over spans up to
	// 7.3 hours): 1 s and 60 s windows, or wider as Summary says.
	Rolling1s     []Point `json:"rolling_1s"`
	Rolling60s    []Point `json:"rolling_60s"`
	RollingStepMS float64 `json:"rolling_step_ms,omitempty"`
	// Failures marks when failed requests ended (Unix ns), at most maxMarks.
	Failures []int64 `json:"failures"`
	// Tokens is the token timeline of a step of one request: ms after sent,
	// cumulative tokens, and instant TPS (1 / ITL) of each arrival (the
	// chunks read at one instant).
	Tokens []TokenPoint `json:"tokens,omitempty"`
}

// TokenPoint is one arrival of a single request's stream.
type TokenPoint struct {
	MS         float64 `json:"ms"`
	Cumulative int     `json:"cumulative"`
	InstantTPS float64 `json:"instant_tps"`
}

const maxMarks = 10000

// cdfQuantiles are the quantiles a CDF is drawn through: every percent and
// the tail.
var cdfQuantiles = func() []float64 {
	var q []float64
	for i := 0; i <= 100; i++ {
		q = append(q, float64(i))
	}
	return append(q, 99.5, 99.9, 99.99)
}()

func (h *histogram) cdf(unit float64) []Point {
	if h.n == 0 {
		return nil
	}
	pts := make([]Point, 0, len(cdfQuantiles))
	for _, q := range cdfQuantiles {
		pts = append(pts, Point{X: h.quantile(q) / unit, V: q / 100})
	}
	return pts
}

// tokenTimeline is the chunk timeline of one record.
func tokenTimeline(r *record.Record) []TokenPoint {
	var out []TokenPoint
	cum, prev := 0, int64(0)
	r.Arrivals(func(at int64, tokens, _ int) {
		cum += tokens
		p := TokenPoint{MS: float64(at) / 1e6, Cumulative: cum}
		// an arrival's tokens share its gap (chunks read at once are one
		// arrival: their own gaps of 0 would read as infinite TPS)
		if len(out) > 0 && tokens > 0 {
			if gap := float64(at-prev) / 1e9 / float64(tokens); gap > 0 {
				p.InstantTPS = 1 / gap
			}
		}
		out = append(out, p)
		prev = at
	})
	return out
}
