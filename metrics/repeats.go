package metrics

import "math"

// Repeat is one step measured several times (a run repeated): each figure's
// mean over the runs, and its 95% confidence interval, so that "A beats B"
// is said only where the intervals do not overlap.
type Repeat struct {
	Label   string              `json:"label"`
	Runs    int                 `json:"runs"`
	Figures map[string]Interval `json:"figures"`
}

// Interval is a figure's mean over runs with its 95% confidence interval
// (Student's t: the runs are few), and the runs' values.
type Interval struct {
	Mean   float64   `json:"mean"`
	Low    float64   `json:"ci95_low"`
	High   float64   `json:"ci95_high"`
	Values []float64 `json:"values"`
}

// repeatFigures are the figures compared across runs, by name.
var repeatFigures = []struct {
	name string
	get  func(s *Summary) (float64, bool)
}{
	{"system_tps", func(s *Summary) (float64, bool) { return s.SystemTPS, s.Requests.Completed > 0 }},
	{"request_tps_mean", func(s *Summary) (float64, bool) { return s.RequestTPS.Mean, s.RequestTPS.Count > 0 }},
	{"decode_tps_mean", func(s *Summary) (float64, bool) { return s.DecodeTPS.Mean, s.DecodeTPS.Count > 0 }},
	{"ttft_p50_ms", func(s *Summary) (float64, bool) { return s.TTFT.P50, s.TTFT.Count > 0 }},
	{"ttft_p99_ms", func(s *Summary) (float64, bool) { return s.TTFT.P99, s.TTFT.Count > 0 }},
	{"tpot_p50_ms", func(s *Summary) (float64, bool) { return s.TPOT.P50, s.TPOT.Count > 0 }},
	{"itl_p50_ms", func(s *Summary) (float64, bool) { return s.ITL.P50, s.ITL.Count > 0 }},
	{"e2e_p50_ms", func(s *Summary) (float64, bool) { return s.E2E.P50, s.E2E.Count > 0 }},
	{"error_rate", func(s *Summary) (float64, bool) { return s.ErrorRate, true }},
}

// RepeatFigureNames lists the figures a Repeat holds, in order.
func RepeatFigureNames() []string {
	names := make([]string, len(repeatFigures))
	for i, f := range repeatFigures {
		names[i] = f.name
	}
	return names
}

// AcrossRuns is the step label's figures over runs, each run's summary of
// it. A figure a run lacks is left out of that figure's values.
func AcrossRuns(label string, runs []Summary) Repeat {
	r := Repeat{Label: label, Runs: len(runs), Figures: map[string]Interval{}}
	for _, f := range repeatFigures {
		var vs []float64
		for i := range runs {
			if v, ok := f.get(&runs[i]); ok {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			r.Figures[f.name] = interval(vs)
		}
	}
	return r
}

// interval is the mean of vs and its 95% confidence interval under
// Student's t with n - 1 degrees of freedom (none for one value).
func interval(vs []float64) Interval {
	n := float64(len(vs))
	mean := 0.0
	for _, v := range vs {
		mean += v
	}
	mean /= n
	iv := Interval{Mean: mean, Low: mean, High: mean, Values: vs}
	if len(vs) < 2 {
		return iv
	}
	ss := 0.0
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	half := tCritical95(len(vs)-1) * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	iv.Low, iv.High = mean-half, mean+half
	return iv
}

// tCritical95 is Student's t for a two-sided 95% interval with df degrees
// of freedom (the tables' values; 1.96, the normal's, from 30 on).
func tCritical95(df int) float64 {
	table := []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	return 1.96
}

// Overlap reports whether two figures' intervals overlap: only where they
// do not is one said to differ from the other.
func Overlap(a, b Interval) bool { return a.Low <= b.High && b.Low <= a.High }
