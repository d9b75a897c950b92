package tpsbench_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/metrics"
)

// rateServer: the targets hold up to a rate of knee requests a second,
// and system TPS grows with the rate.
func rateServer(knee float64, probed *[]float64) tpsbench.ValueProbe {
	return func(_ context.Context, r float64) (metrics.Summary, error) {
		*probed = append(*probed, r)
		time.Sleep(time.Microsecond) // a probe takes time, as a time budget counts it
		return metrics.Summary{Rate: r, SystemTPS: 100 * r, Targets: []metrics.Verdict{{Pass: r <= knee}}}, nil
	}
}

// TestSearchRate: over rates 0.5 to 64 with the targets holding up to
// 12.3: 0.5, 1, 2, 4, 8 and 16 bracket it, bisection narrows 8..16 to
// within 10% (rates of three significant digits), and the best is the
// highest that passed; every probe is reported in the order of its rate.
func TestSearchRate(t *testing.T) {
	var probed []float64
	res, err := tpsbench.Search(context.Background(), tpsbench.Dimension{Name: tpsbench.DimRate, Lo: 0.5, Hi: 64}, tpsbench.Budget{}, rateServer(12.3, &probed))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Best.Value > 12.3 || res.Best.Value < 12.3/1.1 || res.Highest != res.Best.Value {
		t.Fatalf("best %v, highest %v (%s); probed %v", res.Best.Value, res.Highest, res.Why, probed)
	}
	want := []float64{0.5, 1, 2, 4, 8, 16, 12}
	for i, w := range want {
		if i >= len(probed) || probed[i] != w {
			t.Fatalf("probed %v, want %v first", probed, want)
		}
	}
	if len(res.Probes) != len(probed) || !strings.Contains(res.Why, "targets missed at rate 16") {
		t.Errorf("%d probes of %d measured; why %q", len(res.Probes), len(probed), res.Why)
	}
	for i := 1; i < len(res.Probes); i++ {
		if res.Probes[i].Value <= res.Probes[i-1].Value {
			t.Errorf("probes out of order: %v then %v", res.Probes[i-1].Value, res.Probes[i].Value)
		}
	}
}

// TestSearchBudget: a budget of 3 runs measures 3 values and says it was
// spent; a budget of time lets the first probe run and no more once the
// time has passed; the best is of what was measured.
func TestSearchBudget(t *testing.T) {
	var probed []float64
	res, err := tpsbench.Search(context.Background(), tpsbench.Dimension{Name: tpsbench.DimRate, Lo: 1, Hi: 64}, tpsbench.Budget{Runs: 3}, rateServer(40, &probed))
	if err != nil {
		t.Fatal(err)
	}
	if len(probed) != 3 || res.Best.Value != 4 || res.Why != "the budget of 3 runs was spent" {
		t.Errorf("probed %v, best %v, why %q", probed, res.Best.Value, res.Why)
	}
	probed = nil
	res, err = tpsbench.Search(context.Background(), tpsbench.Dimension{Name: tpsbench.DimConcurrency, Lo: 1, Hi: 64}, tpsbench.Budget{Time: time.Nanosecond}, rateServer(40, &probed))
	if err != nil {
		t.Fatal(err)
	}
	if len(probed) != 1 || !res.Found || !strings.Contains(res.Why, "budget of 1ns") {
		t.Errorf("probed %v, why %q", probed, res.Why)
	}
}

// TestParseDimension: AIPerf's form of a search space, and what it refuses.
func TestParseDimension(t *testing.T) {
	for in, want := range map[string]tpsbench.Dimension{
		"concurrency:1,1000:int": {Name: tpsbench.DimConcurrency, Lo: 1, Hi: 1000},
		"rate:0.5,64":            {Name: tpsbench.DimRate, Lo: 0.5, Hi: 64},
		" rate : 2 , 8 :real":    {Name: tpsbench.DimRate, Lo: 2, Hi: 8},
	} {
		if got, err := tpsbench.ParseDimension(in); err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"concurrency", "concurrency:1", "concurrency:0,8", "concurrency:1.5,8", "concurrency:1,8:real",
		"rate:8,2", "rate:0,8", "rate:1,inf", "rate:1,8:int", "temperature:0,1", "rate:a,b"} {
		if _, err := tpsbench.ParseDimension(bad); err == nil {
			t.Errorf("%q taken", bad)
		}
	}
}

// FuzzParseDimension: whatever a search space says, reading it never
// panics, and what it takes holds to Check, with a rounding that stays
// within its bounds.
func FuzzParseDimension(f *testing.F) {
	f.Add("concurrency:1,1000:int")
	f.Add("rate:0.5,64")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := tpsbench.ParseDimension(s)
		if err != nil {
			return
		}
		if err := d.Check(); err != nil || d.Lo <= 0 || d.Hi < d.Lo {
			t.Fatalf("%q taken as %+v (%v)", s, d, err)
		}
	})
}

// TestSearchCoordinates: concurrency then rate, the targets holding up to
// 8 users and 12 requests a second: concurrency is searched at the
// lowest rate, then the rate at the concurrency found; each tuple is
// measured once, the answer is the last tuple found; a budget is the
// whole search's.
func TestSearchCoordinates(t *testing.T) {
	var probed [][]float64
	probe := func(_ context.Context, v []float64) (metrics.Summary, error) {
		probed = append(probed, v)
		return metrics.Summary{SystemTPS: v[0] * v[1], Targets: []metrics.Verdict{{Pass: v[0] <= 8 && v[1] <= 12}}}, nil
	}
	dims := []tpsbench.Dimension{{Name: tpsbench.DimConcurrency, Lo: 1, Hi: 64}, {Name: tpsbench.DimRate, Lo: 1, Hi: 64}}
	res, err := tpsbench.SearchCoordinates(context.Background(), dims, tpsbench.Budget{}, probe)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Values[0] != 8 || res.Values[1] < 12/1.1 || res.Values[1] > 12 || res.Best.Values[0] != 8 {
		t.Fatalf("values %v, found %v (%s); probed %v", res.Values, res.Found, res.Why, probed)
	}
	seen := map[string]bool{}
	for _, v := range probed {
		if k := fmt.Sprint(v); seen[k] {
			t.Errorf("%v measured twice", v)
		} else {
			seen[k] = true
		}
		if v[1] != 1 && v[0] != 8 {
			t.Errorf("%v measured: the rate is searched at the concurrency found", v)
		}
	}
	if len(res.Probes) != len(probed) || !strings.Contains(res.Why, "concurrency: ") || !strings.Contains(res.Why, "rate: ") {
		t.Errorf("%d probes of %d; why %q", len(res.Probes), len(probed), res.Why)
	}
	probed = nil
	res, err = tpsbench.SearchCoordinates(context.Background(), dims, tpsbench.Budget{Runs: 3}, probe)
	if err != nil || len(probed) != 3 || !strings.Contains(res.Why, "budget of 3 runs") {
		t.Errorf("%v: probed %v, why %q", err, probed, res.Why)
	}
	if _, err := tpsbench.SearchCoordinates(context.Background(), []tpsbench.Dimension{dims[0], dims[0]}, tpsbench.Budget{}, probe); err == nil {
		t.Error("a dimension twice taken")
	}
}
