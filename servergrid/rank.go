package servergrid

import (
	"fmt"
	"math"
	"sort"
)

// Rankings a sweep's points can be ordered by.
const (
	RankSystemTPS = "system_tps" // the highest system TPS first (means across runs when repeated)
	RankCost      = "cost"       // the fewest dollars a million output tokens first (the run's --cost-per-hour)
)

// Rank orders results by: RankSystemTPS or RankCost; "" keeps the grid's
// order. Points without the figure (failed, or not priced) go last, in
// the grid's order.
func Rank(results []Result, by string) error {
	var key func(r Result) (float64, bool) // smaller first
	switch by {
	case "":
		return nil
	case RankSystemTPS:
		key = func(r Result) (float64, bool) { return -r.systemTPS(), true }
	case RankCost:
		key = func(r Result) (float64, bool) {
			if c := r.Steps[0].Cost; c != nil && c.PerMillionOutput > 0 {
				return c.PerMillionOutput, true
			}
			return 0, false
		}
	default:
		return fmt.Errorf("rank by %q: want %s or %s", by, RankSystemTPS, RankCost)
	}
	value := func(r Result) float64 {
		if len(r.Steps) == 0 {
			return math.Inf(1)
		}
		if v, ok := key(r); ok {
			return v
		}
		return math.Inf(1)
	}
	sort.SliceStable(results, func(i, j int) bool { return value(results[i]) < value(results[j]) })
	return nil
}
