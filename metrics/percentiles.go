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
		if err != nil {
			return nil, fmt.Errorf("%q: want percentiles above 0 and at most 100, such as 50,90,99,99.9", strings.TrimSpace(f))
		}
		qs = append(qs, q)
	}
	sort.Float64s(qs)
	if err := CheckPercentiles(qs); err != nil {
		return nil, err
	}
	return qs, nil
}

// CheckPercentiles says what is wrong with percentiles to report besides
// the usual ones, if anything: each above 0 and at most 100, none twice.
func CheckPercentiles(qs []float64) error {
	seen := map[float64]bool{}
	for _, q := range qs {
		if !(q > 0 && q <= 100) {
			return fmt.Errorf("percentile %v: want percentiles above 0 and at most 100, such as 50,90,99,99.9", q)
		}
		if seen[q] {
			return fmt.Errorf("percentile %v is given twice", q)
		}
		seen[q] = true
	}
	return nil
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
