// Package metrics turns records into the figures of docs/metrics.md: per
// request, per step (percentiles, throughput, rolling and peak TPS,
// goodput), and verdicts against targets. Memory stays bounded whatever the
// number of records: distributions are HDR histograms.
package metrics

import (
	"encoding/json"
	"math"
	"sort"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Dist is a distribution's summary as reported.
type Dist struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	Max    float64 `json:"max"`
	Count  int64   `json:"count"`
	// Percentiles are those asked for besides the ones above
	// (Steps.WithPercentiles), by PercentileKey.
	Percentiles map[string]float64 `json:"percentiles,omitempty"`
}

// MarshalJSON writes a distribution without samples as null: a figure
// that was not measured (the TPOT of non-streamed responses) is absent,
// never 0.
func (d Dist) MarshalJSON() ([]byte, error) {
	if d.Count == 0 {
		return []byte("null"), nil
	}
	type plain Dist // without this method
	return json.Marshal(plain(d))
}

// histogram collects one figure's samples: percentiles from an HDR histogram
// (3 significant digits), count, mean, standard deviation, min and max exact.
type histogram struct {
	h     *hdrhistogram.Histogram
	scale float64 // sample value = recorded integer / scale
	// exact keeps every sample and reports as numpy does (percentiles
	// interpolated linearly between samples, population standard
	// deviation), for another tool's convention; memory then grows with
	// the samples, as it does in that tool.
	exact   bool
	rank    bool // exact, with GuideLLM's percentiles (the first value whose cumulative share reaches p)
	samples []float64
	sorted  bool
	n       int64
	mean    float64 // Welford
	m2      float64
	min     float64
	max     float64
}

// newLatency holds durations in ns, up to an hour.
func newLatency() *histogram {
	return &histogram{h: hdrhistogram.New(1, int64(3600e9), 3), scale: 1}
}

// newLatencyMS holds durations given in ms (a target's) as newLatency
// holds them in ns, so that a verdict's value is the tables' percentile:
// held in whole ms, 81.05 ms was quoted as 81.00 beside a p99 of 81.10.
func newLatencyMS() *histogram {
	return &histogram{h: hdrhistogram.New(1, int64(3600e9), 3), scale: 1e6}
}

// newRate holds rates (tokens/s) to a thousandth, up to 10 million.
func newRate() *histogram {
	return &histogram{h: hdrhistogram.New(1, int64(1e10), 3), scale: 1000}
}

func (d *histogram) add(v float64) { d.addN(v, 1) }

// addN adds n samples of value v at the cost of one.
func (d *histogram) addN(v float64, n int64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || n <= 0 {
		return
	}
	if v < 0 {
		v = 0
	}
	iv := int64(math.Round(v * d.scale))
	if iv > d.h.HighestTrackableValue() {
		iv = d.h.HighestTrackableValue()
	}
	_ = d.h.RecordValues(iv, n) // cannot fail: iv is within range
	if d.exact {
		for i := int64(0); i < n; i++ {
			d.samples = append(d.samples, v)
		}
		d.sorted = false
	}
	if d.n == 0 {
		d.min, d.max = v, v
	} else {
		d.min = math.Min(d.min, v)
		d.max = math.Max(d.max, v)
	}
	// Welford's update for n equal samples (Chan et al.'s pairwise form)
	total := d.n + n
	delta := v - d.mean
	d.mean += delta * float64(n) / float64(total)
	d.m2 += delta * delta * float64(d.n) * float64(n) / float64(total)
	d.n = total
}

// quantile returns the value at q percent (0-100).
func (d *histogram) quantile(q float64) float64 {
	if d.n == 0 {
		return 0
	}
	if d.rank {
		return d.rankQuantile(q)
	}
	if d.exact {
		return d.exactQuantile(q)
	}
	v := float64(d.h.ValueAtQuantile(q)) / d.scale
	// HDR reports the top of the bucket; never report past the real extremes.
	return math.Max(d.min, math.Min(d.max, v))
}

// summary reports the distribution with every value divided by unit (1e6
// turns ns into ms).
func (d *histogram) summary(unit float64) Dist {
	if d.n == 0 {
		return Dist{}
	}
	sd := 0.0
	switch {
	case d.exact: // numpy's np.std: the population's
		sd = math.Sqrt(d.m2 / float64(d.n))
	case d.n > 1:
		sd = math.Sqrt(d.m2 / float64(d.n-1))
	}
	return Dist{
		Mean: d.mean / unit, Stddev: sd / unit, Min: d.min / unit, Max: d.max / unit,
		P50: d.quantile(50) / unit, P90: d.quantile(90) / unit, P95: d.quantile(95) / unit,
		P99: d.quantile(99) / unit, P999: d.quantile(99.9) / unit, Count: d.n,
	}
}

// newExact is a latency histogram that keeps its samples (see
// histogram.exact).
func newExact() *histogram { return keepSamples(newLatency(), false) }

// newRank is a latency histogram that keeps its samples, with GuideLLM's
// percentiles.
func newRank() *histogram { return keepSamples(newLatency(), true) }

// keepSamples makes h keep every sample, with GuideLLM's percentiles when
// rank is set, numpy's otherwise.
func keepSamples(h *histogram, rank bool) *histogram {
	h.exact, h.rank = true, rank
	return h
}

// rankQuantile is GuideLLM's percentile (DistributionSummary.from_values,
// Percentiles.from_pdf): equal values merged, their shares summed in order
// (np.cumsum), and the first value whose cumulative share reaches q/100
// (np.searchsorted, side left). The shares are added one by one in float64
// as numpy does, so ties at a boundary fall the same way.
func (d *histogram) rankQuantile(q float64) float64 {
	if !d.sorted {
		sort.Float64s(d.samples)
		d.sorted = true
	}
	p, n := q/100, float64(len(d.samples))
	cum := 0.0
	for i := 0; i < len(d.samples); {
		j := i
		for j < len(d.samples) && d.samples[j] == d.samples[i] {
			j++
		}
		cum += float64(j-i) / n
		if cum >= p {
			return d.samples[i]
		}
		i = j
	}
	return d.samples[len(d.samples)-1]
}

// exactQuantile is numpy's np.percentile (linear): the value at rank
// q/100 * (n-1) of the sorted samples, interpolated between neighbours.
func (d *histogram) exactQuantile(q float64) float64 {
	if !d.sorted {
		sort.Float64s(d.samples)
		d.sorted = true
	}
	rank := q / 100 * float64(len(d.samples)-1)
	lo := int(math.Floor(rank))
	hi := min(lo+1, len(d.samples)-1)
	return d.samples[lo] + (d.samples[hi]-d.samples[lo])*(rank-float64(lo))
}
