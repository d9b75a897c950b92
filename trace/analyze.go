package trace

import (
	"errors"
	"io"
	"maps"
	"math"
	"slices"
	"time"
)

// Analysis is what a trace asks of a server, read before it is replayed
// (AIPerf's analyze-trace): how many requests over how long, how bursty
// their arrivals, the lengths of their prompts and answers, and the share
// of prompt tokens a prefix cache could reuse.
type Analysis struct {
	// Requests are the entries read; Skipped those that cannot be
	// replayed, Bad those that are not entries (FirstBad says why of the
	// first), Late those that arrived out of order past the reorder
	// window (Stats holds them all).
	Requests int    `json:"requests"`
	Skipped  int    `json:"skipped"`
	Bad      int    `json:"bad"`
	Late     int    `json:"late"`
	FirstBad string `json:"first_bad,omitempty"`
	Stats    Stats  `json:"-"`
	// Span is the first arrival to the last; Rate the requests a second
	// over it (none for one request).
	Span time.Duration `json:"span_ns"`
	Rate float64       `json:"requests_per_second,omitempty"`
	// GapMean and GapCV are the gaps between arrivals: their mean and
	// coefficient of variation (standard deviation over mean: 1 for
	// Poisson arrivals, 0 for a fixed rate, above 1 for bursts).
	GapMean time.Duration `json:"gap_mean_ns,omitempty"`
	GapCV   float64       `json:"gap_cv,omitempty"`
	Input   Lengths       `json:"input_tokens"`
	Output  Lengths       `json:"output_tokens"`
	// PromptTokens are the entries' input tokens together; ReusedTokens
	// those of leading blocks an earlier entry had (what a prefix cache
	// that keeps every block could skip), and ReusedShare their share.
	// A trace without blocks (BurstGPT's) implies no reuse.
	PromptTokens int64   `json:"prompt_tokens"`
	ReusedTokens int64   `json:"reused_tokens"`
	ReusedShare  float64 `json:"reused_share"`
	WithBlocks   int     `json:"entries_with_blocks"`
}

// Lengths is a distribution of token counts: exact, the p-th percentile
// the value at rank ceil(p/100 × count) of the sorted counts.
type Lengths struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	Min   int     `json:"min"`
	P50   int     `json:"p50"`
	P90   int     `json:"p90"`
	P99   int     `json:"p99"`
	Max   int     `json:"max"`
}

// Analyze reads rd to its end. What it holds grows with the distinct
// lengths the trace has, not with its entries (a trace's size costs time
// to read, not memory), and with the prefix blocks seen, up to the
// replay's bound.
func Analyze(rd Entries) (Analysis, error) {
	var a Analysis
	inputs, outputs := lengthCounts{}, lengthCounts{}
	entries := 0
	cache := newPrefixCache()
	var first, last time.Duration
	var gaps, gapMean, gapM2 float64 // Welford's, over seconds
	for {
		var e Entry
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			a.setStats(rd.Stats())
			return a, err
		}
		if entries == 0 {
			first = e.Offset
		} else {
			gap := (e.Offset - last).Seconds()
			gaps++
			delta := gap - gapMean
			gapMean += delta / gaps
			gapM2 += delta * (gap - gapMean)
		}
		last = e.Offset
		inputs[e.InputTokens]++
		outputs[e.OutputTokens]++
		entries++
		a.PromptTokens += int64(e.InputTokens)
		if len(e.Blocks) > 0 {
			a.WithBlocks++
		}
		a.ReusedTokens += int64(cache.reuse(&e))
	}
	a.setStats(rd.Stats())
	a.Input, a.Output = inputs.lengths(), outputs.lengths()
	a.Span = last - first
	if a.Span > 0 { // two entries at least
		a.Rate = float64(entries-1) / a.Span.Seconds()
	}
	a.GapMean = time.Duration(gapMean * 1e9) // 0 without gaps
	if gaps > 1 && gapMean > 0 {
		a.GapCV = math.Sqrt(gapM2/(gaps-1)) / gapMean
	}
	if a.PromptTokens > 0 {
		a.ReusedShare = float64(a.ReusedTokens) / float64(a.PromptTokens)
	}
	return a, nil
}

func (a *Analysis) setStats(st Stats) {
	a.Stats, a.Requests, a.Skipped, a.Bad, a.Late = st, st.Entries, st.Skipped, st.Bad, st.Late
	if st.FirstBad != nil {
		a.FirstBad = st.FirstBad.Error()
	}
}

// lengthCounts counts the entries of each length.
type lengthCounts map[int]int64

// lengths summarizes the counts.
func (c lengthCounts) lengths() Lengths {
	if len(c) == 0 {
		return Lengths{}
	}
	values := slices.Sorted(maps.Keys(c))
	var n int64
	sum := 0.0
	for _, v := range values {
		n += c[v]
		sum += float64(v) * float64(c[v])
	}
	// the value at rank ceil(p/100 * n), 1 to n, of the sorted counts
	at := func(p float64) int {
		rank := min(max(int64(math.Ceil(p/100*float64(n))), 1), n)
		var seen int64
		for _, v := range values[:len(values)-1] {
			if seen += c[v]; seen >= rank {
				return v
			}
		}
		return values[len(values)-1] // the rank is at most n: the last value holds the rest
	}
	return Lengths{Count: int(n), Mean: sum / float64(n), Min: values[0], Max: values[len(values)-1],
		P50: at(50), P90: at(90), P99: at(99)}
}
