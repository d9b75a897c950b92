package servergrid

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/metrics"
)

// searchOptions are a sweep of the test binary as its server over g.
func searchOptions(t *testing.T, g Grid) Options {
	exe, _ := os.Executable()
	return Options{ServeCmd: fmt.Sprintf(`SWEEP_TEST_SERVE={port} exec %q`, exe), Grid: g, Dir: t.TempDir(), API: "chat",
		ReadyTimeout: 20 * time.Second, StopGrace: 5 * time.Second}
}

// holdsUpTo is a server whose targets hold while every key's value is at
// most its limit; it logs the points measured.
func holdsUpTo(limits map[string]int, measured *[]string) Measure {
	return func(_ context.Context, p Point, _, _ string) (Outcome, error) {
		*measured = append(*measured, p.String())
		pass, tps := true, 0.0
		for k, key := range p.Keys {
			v, _ := strconv.Atoi(p.Values[k])
			pass = pass && v <= limits[key]
			tps += float64(v)
		}
		return Outcome{Steps: []metrics.Summary{{SystemTPS: tps}}, Pass: pass}, nil
	}
}

// TestSearchOneKey: over seqs=1..256 in doublings with the targets
// holding up to 32: the indices 0, 1, 3, 7 bracket it (1, 2, 8, 128),
// bisection between 8 and 128 tries 32 (passes), then 64 (fails): 32 is
// the answer, six of the grid's nine points measured, each a result in
// the order measured.
func TestSearchOneKey(t *testing.T) {
	g, _ := ParseGrid("seqs=1,2,4,8,16,32,64,128,256", false)
	var measured []string
	results, out, err := Search(context.Background(), searchOptions(t, g), SearchBudget{}, holdsUpTo(map[string]int{"seqs": 32}, &measured))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"seqs=1", "seqs=2", "seqs=8", "seqs=128", "seqs=32", "seqs=64"}
	if strings.Join(measured, " ") != strings.Join(want, " ") || len(results) != len(want) {
		t.Errorf("measured %v, want %v", measured, want)
	}
	if !out.Found || out.Best.Params["seqs"] != "32" || !strings.Contains(out.Why, "seqs: value 6 of 9") {
		t.Errorf("found %v %v (%s)", out.Found, out.Best.Params, out.Why)
	}
}

// TestSearchTwoKeys: a coordinate search, seqs first with batch at its
// first value, then batch at the seqs found.
func TestSearchTwoKeys(t *testing.T) {
	g, _ := ParseGrid("seqs=1,2,4,8 batch=16,32,64,128", false)
	var measured []string
	_, out, err := Search(context.Background(), searchOptions(t, g), SearchBudget{}, holdsUpTo(map[string]int{"seqs": 4, "batch": 64}, &measured))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Found || out.Best.Params["seqs"] != "4" || out.Best.Params["batch"] != "64" {
		t.Errorf("found %v %v (%s); measured %v", out.Found, out.Best.Params, out.Why, measured)
	}
	for _, p := range measured {
		if strings.Contains(p, "seqs=8") && !strings.Contains(p, "batch=16") {
			t.Errorf("%s measured: the second key is searched at the first's answer", p)
		}
	}
}

// TestSearchBudgetAndMisses: a budget of two runs ends the search after
// two points, its answer the higher that passed; a grid whose first
// value misses the targets answers none.
func TestSearchBudgetAndMisses(t *testing.T) {
	g, _ := ParseGrid("seqs=1,2,4,8", false)
	var measured []string
	results, out, err := Search(context.Background(), searchOptions(t, g), SearchBudget{Runs: 2}, holdsUpTo(map[string]int{"seqs": 8}, &measured))
	if err != nil || len(results) != 2 || out.Why != "the budget of 2 runs was spent" || !out.Found || out.Best.Params["seqs"] != "2" {
		t.Errorf("%v: %d results, why %q, found %v %v", err, len(results), out.Why, out.Found, out.Best.Params)
	}
	measured = nil
	_, out, err = Search(context.Background(), searchOptions(t, g), SearchBudget{}, holdsUpTo(map[string]int{"seqs": 0}, &measured))
	if err != nil || out.Found || len(measured) != 1 || !strings.Contains(out.Why, "first value missed") {
		t.Errorf("%v: found %v, measured %v, why %q", err, out.Found, measured, out.Why)
	}
	o := searchOptions(t, g)
	o.DryRun = true
	if _, _, err := Search(context.Background(), o, SearchBudget{}, holdsUpTo(nil, &measured)); err == nil {
		t.Error("a dry run of a search taken")
	}
}
