package metrics

import (
	"math"
	"sort"

	"github.com/tpsbench/tpsbench/record"
)

// GuideLLM's figures that are not one value a request: its output tokens
// per second, a rate distribution over every token event of the step
// (src/guidellm/schemas/statistics.py, DistributionSummary
// .rate_distribution_from_timings; request_stats.py,
// output_tokens_timings), reproduced step by step.

// guidellmEvent is some tokens at a moment (absolute ns).
type guidellmEvent struct {
	at     int64
	tokens float64
}

// guidellmTokens is a request's output tokens as GuideLLM counts them:
// the server's usage, else one a streamed iteration (chunk), never a
// tokenizer's count.
func guidellmTokens(r *record.Record) int {
	if r.TokenSource == record.SourceUsage {
		return r.OutputTokens
	}
	return len(r.Chunks) + r.ChunksFolded
}

// guidellmTimings are a request's output token events: with one
// iteration, all its tokens at the last; else one token at the first and
// the rest spread evenly over the others, spaced evenly from the first to
// the last (GuideLLM keeps no per-iteration times).
func guidellmTimings(r *record.Record, n int) []guidellmEvent {
	iterations := len(r.Chunks) + r.ChunksFolded
	first, last := r.Abs(r.First), r.Abs(r.Last)
	if iterations <= 1 {
		return []guidellmEvent{{last, float64(n)}}
	}
	events := make([]guidellmEvent, 0, iterations)
	events = append(events, guidellmEvent{first, 1})
	if n <= 1 {
		return events // its iter_tokens_per_iteration is None: no more events
	}
	each := float64(n-1) / float64(iterations-1)
	step := float64(last-first) / float64(iterations-1)
	for i := 1; i < iterations; i++ {
		events = append(events, guidellmEvent{first + int64(math.Round(step*float64(i))), each})
	}
	return events
}

// guidellmMergeWindow is how close (in seconds) events must be to count as
// one moment (its threshold, a tenth of a millisecond).
const guidellmMergeWindow = 1e-4

// guidellmRates is the distribution of GuideLLM's output tokens per second
// over the window [start, end] (absolute ns): events outside dropped, the
// window's ends added with no tokens, equal and near moments merged, each
// moment's rate its tokens over the time to the midpoints of its
// neighbours, and the rates weighted by those times.
func guidellmRates(events []guidellmEvent, start, end int64) Dist {
	type moment struct{ t, w float64 }
	ms := []moment{{0, 0}}
	for _, e := range events {
		if e.at >= start && e.at <= end {
			ms = append(ms, moment{float64(e.at-start) / 1e9, e.tokens})
		}
	}
	ms = append(ms, moment{float64(end-start) / 1e9, 0})
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].t < ms[j].t })
	// equal moments first (np.unique), then near ones, until none is left
	merged := ms[:1]
	for _, m := range ms[1:] {
		if last := &merged[len(merged)-1]; m.t == last.t {
			last.w += m.w
		} else {
			merged = append(merged, m)
		}
	}
	ms = merged
	for {
		var next []moment
		for i := 0; i < len(ms); {
			j := i
			if i+1 < len(ms) && ms[i+1].t-ms[i].t <= guidellmMergeWindow {
				for j+1 < len(ms) && ms[j+1].t <= ms[i].t+guidellmMergeWindow {
					j++
				}
			}
			m := ms[i]
			for k := i + 1; k <= j; k++ {
				m.w += ms[k].w
			}
			next = append(next, m)
			i = j + 1
		}
		if len(next) == len(ms) {
			break
		}
		ms = next
	}
	if len(ms) <= 1 {
		return Dist{}
	}
	values := make([]weighted, len(ms))
	tokens := 0.0
	for i, m := range ms {
		var d float64
		switch i {
		case 0:
			d = (ms[1].t+m.t)/2 - m.t
		case len(ms) - 1:
			d = math.Max(m.t-(ms[i-1].t+m.t)/2, 1e-6)
		default:
			d = (ms[i+1].t+m.t)/2 - (m.t+ms[i-1].t)/2
		}
		values[i] = weighted{m.w / d, d}
		tokens += m.w
	}
	return weightedDist(values, int64(math.Round(tokens)))
}

// weighted is a value with its weight.
type weighted struct{ v, w float64 }

// weightedDist is GuideLLM's DistributionSummary.from_values over weighted
// values: equal values merged, zero weights dropped, probabilities the
// weights' shares; mean and population standard deviation under them;
// a percentile the first value whose cumulative share reaches it.
func weightedDist(values []weighted, count int64) Dist {
	sort.SliceStable(values, func(i, j int) bool { return values[i].v < values[j].v })
	var vs []weighted
	for _, x := range values {
		if n := len(vs); n > 0 && vs[n-1].v == x.v {
			vs[n-1].w += x.w
		} else {
			vs = append(vs, x)
		}
	}
	kept, total := vs[:0], 0.0
	for _, x := range vs {
		if x.w > 0 {
			kept = append(kept, x)
			total += x.w
		}
	}
	if len(kept) == 0 {
		return Dist{}
	}
	mean := 0.0
	for _, x := range kept {
		mean += x.v * (x.w / total)
	}
	variance := 0.0
	for _, x := range kept {
		variance += (x.v - mean) * (x.v - mean) * (x.w / total)
	}
	at := func(p float64) float64 {
		cum := 0.0
		for _, x := range kept[:len(kept)-1] {
			cum += x.w / total
			if cum >= p {
				return x.v
			}
		}
		return kept[len(kept)-1].v // the shares' sum, rounded, may fall short of p
	}
	return Dist{Mean: mean, Stddev: math.Sqrt(variance), Min: kept[0].v, Max: kept[len(kept)-1].v,
		P50: at(0.5), P90: at(0.9), P95: at(0.95), P99: at(0.99), P999: at(0.999), Count: count}
}
