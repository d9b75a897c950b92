package trace

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestAnalyze: four Mooncake requests at 0, 1, 3 and 6 s (gaps of 1, 2
// and 3 s: mean 2 s, standard deviation 1, CV 0.5; 3 gaps over 6 s, 0.5
// requests a second). Their blocks of 512 tokens: [1 2], [1 2 3] (1,024
// tokens an earlier request had), [4] (none), [1 9] (512: the prefix
// stops at 9): 1,536 of 4,096 prompt tokens, 37.5%.
func TestAnalyze(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 1024, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 1000, "input_length": 1536, "output_length": 20, "hash_ids": [1, 2, 3]}
{"timestamp": 3000, "input_length": 512, "output_length": 30, "hash_ids": [4]}
{"timestamp": 6000, "input_length": 1024, "output_length": 40, "hash_ids": [1, 9]}
`
	rd, err := NewReader(strings.NewReader(in), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(rd)
	if err != nil {
		t.Fatal(err)
	}
	if a.Stats.Entries != 4 || a.Span != 6*time.Second || a.Rate != 0.5 || a.GapMean != 2*time.Second || a.GapCV != 0.5 {
		t.Errorf("arrivals: %+v", a)
	}
	if want := (Lengths{Count: 4, Mean: 1024, Min: 512, P50: 1024, P90: 1536, P99: 1536, Max: 1536}); a.Input != want {
		t.Errorf("input %+v, want %+v", a.Input, want)
	}
	if want := (Lengths{Count: 4, Mean: 25, Min: 10, P50: 20, P90: 40, P99: 40, Max: 40}); a.Output != want {
		t.Errorf("output %+v, want %+v", a.Output, want)
	}
	if a.PromptTokens != 4096 || a.ReusedTokens != 1536 || a.ReusedShare != 0.375 || a.WithBlocks != 4 {
		t.Errorf("reuse: %d of %d (%v), %d with blocks", a.ReusedTokens, a.PromptTokens, a.ReusedShare, a.WithBlocks)
	}
	if rd.Format() != FormatMooncake {
		t.Errorf("format %q", rd.Format())
	}
}

// TestAnalyzeWithoutBlocksOrGaps: BurstGPT's rows carry no blocks (no
// reuse is implied); one request has no gap and no rate.
func TestAnalyzeWithoutBlocksOrGaps(t *testing.T) {
	rd, err := NewReader(strings.NewReader(burstGPTSample), "b.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(rd)
	if err != nil || a.ReusedShare != 0 || a.WithBlocks != 0 || a.Stats.Skipped != 1 || a.Input.Count != 2 || a.Span != 41500*time.Millisecond {
		t.Errorf("%+v, %v", a, err)
	}
	rd, _ = NewReader(strings.NewReader(`{"timestamp": 5, "input_length": 7, "output_length": 3}`+"\n"), "one.jsonl", Options{})
	a, err = Analyze(rd)
	if err != nil || a.Rate != 0 || a.GapMean != 0 || a.GapCV != 0 || a.Input.P99 != 7 || a.Output.Mean != 3 {
		t.Errorf("one request: %+v, %v", a, err)
	}
}

// TestAnalyzeStopsAtABadTrace: an entry that cannot be read ends the
// analysis with its error, the counts so far kept.
func TestAnalyzeStopsAtABadTrace(t *testing.T) {
	rd, _ := NewReader(strings.NewReader(`{"timestamp": 0, "input_length": 7, "output_length": 3}`+"\n"+`{"timestamp": -1, "input_length": 7, "output_length": 3}`+"\n"), "bad.jsonl", Options{})
	if _, err := Analyze(rd); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("error %v", err)
	}
}

// TestAnalyzePercentilesAndGaps: over 200 requests of 1 to 200 tokens,
// p99 is the 198th count, not the largest; two requests have one gap, so
// no spread of gaps (CV 0); requests all at one instant have no gaps to
// spread either.
func TestAnalyzePercentilesAndGaps(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 1}`+"\n", i*10, i)
	}
	a := analyzed(t, b.String(), Options{})
	if a.Input.P99 != 198 || a.Input.P90 != 180 || a.Input.P50 != 100 || a.Input.Max != 200 {
		t.Errorf("input %+v", a.Input)
	}
	for _, in := range []string{
		`{"timestamp": 0, "input_length": 5, "output_length": 1}` + "\n" + `{"timestamp": 40, "input_length": 5, "output_length": 1}` + "\n",
		strings.Repeat(`{"timestamp": 7, "input_length": 5, "output_length": 1}`+"\n", 3),
	} {
		if a := analyzed(t, in, Options{}); a.GapCV != 0 || math.IsNaN(a.GapCV) {
			t.Errorf("%q: CV %v", in, a.GapCV)
		}
	}
}

// TestAnalyzeAWindow: a window's span runs from its first request, at its
// own offset from the window's start.
func TestAnalyzeAWindow(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 5, "output_length": 1}
{"timestamp": 1500, "input_length": 5, "output_length": 1}
{"timestamp": 4000, "input_length": 5, "output_length": 1}
`
	if a := analyzed(t, in, Options{From: time.Second}); a.Requests != 2 || a.Span != 2500*time.Millisecond {
		t.Errorf("requests %d over %v, want 2 over 2.5 s", a.Requests, a.Span)
	}
}

func analyzed(t *testing.T, in string, opts Options) Analysis {
	t.Helper()
	rd, err := NewReader(strings.NewReader(in), "t.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(rd)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
