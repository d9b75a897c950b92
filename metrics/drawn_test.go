package metrics

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// TestWeightedDist: GuideLLM's distribution of weighted values, worked
// by hand: 1, 2 and 3 weighted 1, 1 and 2 have the mean 9/4, the
// population variance 11/16 under the weights, the median 2 (the first
// value whose cumulative share, 1/4 then 1/2, reaches it) and 3 past it.
func TestWeightedDist(t *testing.T) {
	d := weightedDist([]weighted{{3, 2}, {1, 1}, {2, 1}}, 4)
	if d.Mean != 2.25 || math.Abs(d.Stddev-math.Sqrt(11.0/16)) > 1e-12 || d.P50 != 2 || d.P90 != 3 || d.P999 != 3 || d.Min != 1 || d.Max != 3 {
		t.Errorf("%+v", d)
	}
	// ten tenths add up to less than one in floating point: the highest
	// percentile is still the last value
	var tenths []weighted
	for i := range 10 {
		tenths = append(tenths, weighted{float64(i + 1), 0.1})
	}
	if d := weightedDist(tenths, 10); d.P999 != 10 || d.P50 != 5 {
		t.Errorf("tenths: %+v", d)
	}
}

// TestGuideLLMMoments: an event exactly the merge window (0.1 ms) after
// the window's start is one moment with it, as GuideLLM merges them; a
// request of folded chunks has their iterations too.
func TestGuideLLMMoments(t *testing.T) {
	start, end := int64(1_000_000_000_000), int64(1_000_000_000_000+1e9)
	near := guidellmRates([]guidellmEvent{{start + 1e5, 5}, {start + 6e8, 3}}, start, end)
	at := guidellmRates([]guidellmEvent{{start, 5}, {start + 6e8, 3}}, start, end)
	if near.Mean != at.Mean || near.Stddev != at.Stddev || near.Count != at.Count || near.P50 != at.P50 {
		t.Errorf("an event 0.1 ms in: %+v; at the start: %+v", near, at)
	}
	r := &record.Record{T0: 0, Sent: 0, First: 10, Last: 50, Chunks: []record.Chunk{{At: 10, Tokens: 1}, {At: 50, Tokens: 4}}, ChunksFolded: 3, OutputTokens: 5}
	if got := guidellmTimings(r, 5); len(got) != 5 {
		t.Errorf("%d events of 2 chunks and 3 folded ones, want 5", len(got))
	}
}

// TestCountsOfAStep: every completed request counts once under its
// token source; audio of half a second counts; the upload's distribution
// is of requests with media that took time to write: neither one with
// media written at once nor one without media.
func TestCountsOfAStep(t *testing.T) {
	s := NewAccumulator(Targets{})
	a, b, plain := away(5000, 10), away(5100, 10), away(5200, 10)
	a.Audios, a.AudioSeconds, a.Done = 1, 0.5, a.Sent+int64(2e9)
	b.Images, b.Upload = 1, 0
	plain.Upload = 5 * ms // no media: its upload is no media's
	s.Add(a)
	s.Add(b)
	s.Add(plain)
	sum := s.Summary()
	if sum.TokenSources[record.SourceUsage] != 3 {
		t.Errorf("token sources %v", sum.TokenSources)
	}
	if sum.AudioSeconds != 0.5 || sum.RealTimeFactor != 0.25 {
		t.Errorf("audio %v s, real-time factor %v", sum.AudioSeconds, sum.RealTimeFactor)
	}
	if sum.Upload != nil {
		t.Errorf("an upload of 0 ns counted: %+v", sum.Upload)
	}
}

// TestBinsWidenToTheirSpan: widened bins span exactly the first arrival's
// bin to the last's, none past them.
func TestBinsWidenToTheirSpan(t *testing.T) {
	var b tokenBins
	b.add(0, 1)
	far := int64(maxBins) * int64(binWidth) * 3
	b.add(far, 1)
	if want := floorDiv(far, b.width) - floorDiv(0, b.width) + 1; int64(len(b.counts)) != want || b.base != 0 {
		t.Errorf("%d bins from %d of %v, want %d from 0", len(b.counts), b.base, b.resolution(), want)
	}
}

// TestCornersUnreached: the branches no other test of the package took,
// each pinned from its definition.
func TestCornersUnreached(t *testing.T) {
	if d := weightedDist([]weighted{{5, 0}, {7, 0}}, 0); d.Count != 0 {
		t.Errorf("values of no weight: %+v", d)
	}
	if (&HTTPPhases{}).ReusedShare() != 0 {
		t.Error("a share of no requests")
	}
	// one token over several chunks: its first iteration's event alone
	one := &record.Record{First: 10, Last: 30, Chunks: []record.Chunk{{At: 10, Tokens: 1}, {At: 30, Tokens: 0}}, OutputTokens: 1}
	if got := guidellmTimings(one, 1); len(got) != 1 || got[0].tokens != 1 {
		t.Errorf("one token's events %+v", got)
	}
	// vLLM's convention times nothing of an answer without an event;
	// GuideLLM's nothing of one whose first token came before its send
	v := NewSteps(Targets{}).WithConvention(ConventionVLLM)
	bare := away(5000, 10)
	bare.Chunks, bare.OtherEvents = nil, nil
	v.Add(bare)
	if s := v.Summaries()[0]; s.TTFT.Count != 0 || s.E2E.Count != 0 {
		t.Errorf("vLLM timed an answer of no event: TTFT %+v", s.TTFT)
	}
	g := NewSteps(Targets{}).WithConvention(ConventionGuideLLM)
	early := away(5000, 10)
	early.First = early.Sent - 1
	g.Add(early)
	if s := g.Summaries()[0]; s.TTFT.Count != 0 {
		t.Errorf("GuideLLM timed a token before its send: %+v", s.TTFT)
	}
	// past the models a step keeps apart, the rest count together
	m := NewAccumulator(Targets{})
	for i := range maxPartsApart + 2 {
		r := away(5000+int64(i), 10)
		r.Model = fmt.Sprintf("model-%03d", i)
		m.Add(r)
	}
	parts := m.Summary().Models
	others := 0
	for _, p := range parts {
		if p.Name == otherPartsKey {
			others = p.Completed
		}
	}
	if len(parts) != maxPartsApart+1 || others != 2 {
		t.Errorf("%d parts, %d requests of others", len(parts), others)
	}
}

// TestLanesBounded: a step keeps the turns of its first maxLanes
// sessions, in order of run then session.
func TestLanesBounded(t *testing.T) {
	s := NewAccumulator(Targets{})
	for i := range maxLanes + 5 {
		r := away(5000+int64(i), 10)
		r.Session, r.Turn, r.Run = maxLanes+5-i, 1, "b"
		if i == 0 {
			r.Run = "a"
		}
		s.Add(r)
	}
	lanes := s.Summary().Sessions.Lanes
	if len(lanes) != maxLanes || lanes[0].Session != maxLanes+5 || lanes[1].Session >= lanes[2].Session {
		t.Errorf("%d lanes, the first of session %d", len(lanes), lanes[0].Session)
	}
}

// TestThirdDrawEdges: figures at the edges a third fresh draw found
// unpinned, each from its definition.
func TestThirdDrawEdges(t *testing.T) {
	// a slice of one request that took no time has no TPS to give
	ss := NewSteps(Targets{}).WithSlices(time.Second)
	instant := away(5000, 0)
	ss.Add(instant)
	if sl := ss.Summaries()[0].Slices; len(sl) != 1 || sl[0].TPS != 0 {
		t.Errorf("an instant's slice: %+v", sl)
	}
	// a session turn that completed without a token has no TTFT
	s := NewAccumulator(Targets{})
	empty := away(5000, 10)
	empty.Session, empty.Turn, empty.OutputTokens = 1, 1, 0
	s.Add(empty)
	if v := s.Summary().Sessions; v == nil || v.FirstTTFT.Count != 0 {
		t.Errorf("sessions %+v", v)
	}
	// a byte of peak memory over one stream is a byte a stream
	if got := (&ClientLoad{PeakBytes: 1, Streams: 1}).BytesPerStream(); got != 1 {
		t.Errorf("1 byte over 1 stream: %d", got)
	}
	// one input token over an hour at a dollar an hour costs a million dollars a million
	if c := CostAt(&Summary{InputTokens: 1, DurationS: 3600}, 1); c == nil || c.PerMillionInput != 1e6 {
		t.Errorf("cost %+v", c)
	}
	// the live view's seconds: at most 63 before now; the cumulative rate
	// over 1.5 ms is over 1.5 ms, only a shorter time counting as 1 ms
	var b SecondBins
	now := time.Unix(1_000_000, 0)
	b.Add(now.UnixNano()-int64(1500*time.Microsecond), 3)
	if got := len(b.Last(100, now)); got != 63 {
		t.Errorf("%d seconds of a window of 100, want 63", got)
	}
	if got := b.Cumulative(now); math.Abs(got-3/0.0015) > 1e-6 {
		t.Errorf("3 tokens over 1.5 ms: %v a second", got)
	}
}
