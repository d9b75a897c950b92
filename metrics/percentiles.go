package metrics

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ParsePercentiles reads a list such as "50,90,99,99.9": each above 0 and
// at most 100, in rising order without repeats.
func ParsePercentiles(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var qs []float64
	for _, f := range strings.Split(s, ",") {
		q, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(q > 0 && q <= 100) {
			return nil, fmt.Errorf("%q: want percentiles above 0 and at most 100, such as 50,90,99,99.9", strings.TrimSpace(f))
		}
		qs = append(qs, q)
	}
	sort.Float64s(qs)
	for i := 1; i < len(qs); i++ {
		if qs[i] == qs[i-1] {
			return nil, fmt.Errorf("%v is given twice", qs[i])
		}
	}
	return qs, nil
}

// PercentileKey names percentile q in Dist.Percentiles: "p75", "p99.9".
func PercentileKey(q float64) string { return "p" + strconv.FormatFloat(q, 'f', -1, 64) }

// WithPercentiles makes every distribution of the steps also report the
// percentiles qs (Dist.Percentiles), as vLLM's --metric-percentiles does.
func (ss *Steps) WithPercentiles(qs []float64) *Steps {
	ss.percentiles = qs
	return ss
}

// withPercentiles adds h's percentiles qs to d (its values divided by
// unit), when d has samples.
func withPercentiles(d *Dist, h *histogram, unit float64, qs []float64) {
	if len(qs) == 0 || d.Count == 0 || h.n == 0 {
		return
	}
	d.Percentiles = make(map[string]float64, len(qs))
	for _, q := range qs {
		d.Percentiles[PercentileKey(q)] = h.quantile(q) / unit
	}
}
