package tpsbench_test

import (
	"context"
	"testing"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/metrics"
)

// fakeServer: system TPS grows linearly to a knee, per-request TPS falls
// with load; the target is per-request TPS >= 30.
func fakeProbe(knee int, probed *[]int) tpsbench.Probe {
	return func(_ context.Context, c int) (metrics.Summary, error) {
		*probed = append(*probed, c)
		sys := float64(min(c, knee)) * 50
		per := sys / float64(c)
		return metrics.Summary{Concurrency: c, SystemTPS: sys, Targets: []metrics.Verdict{{Target: metrics.Target{Name: "request_tps", Want: 30}, Got: per, Pass: per >= 30}}}, nil
	}
}

func TestFindMaxBrackets(t *testing.T) {
	// Per-request TPS is 50 up to the knee at 40, then 50*40/c: it meets 30
	// up to c = 66.
	var probed []int
	res, err := tpsbench.FindMax(context.Background(), 1, 512, func(ctx context.Context, c int) (metrics.Summary, error) {
		probed = append(probed, c)
		per := 50.0
		if c > 40 {
			per = 50 * 40 / float64(c)
		}
		return metrics.Summary{Concurrency: c, SystemTPS: per * float64(c), Targets: []metrics.Verdict{{Got: per, Pass: per >= 30}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 1,2,4,...,64 pass (64 gives 31.25), 128 fails, then bisection within 10%.
	if !res.Found || res.Best.Concurrency < 60 || res.Best.Concurrency > 66 {
		t.Fatalf("best %d (%s), probed %v", res.Best.Concurrency, res.Why, probed)
	}
	if len(probed) > 12 {
		t.Errorf("%d probes: %v", len(probed), probed)
	}
}

func TestFindMaxStopsOnSaturation(t *testing.T) {
	var probed []int
	res, err := tpsbench.FindMax(context.Background(), 1, 1024, func(ctx context.Context, c int) (metrics.Summary, error) {
		probed = append(probed, c)
		sys := float64(min(c, 8)) * 100 // no gain past 8
		return metrics.Summary{Concurrency: c, SystemTPS: sys, Targets: []metrics.Verdict{{Pass: true}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if probed[len(probed)-1] != 16 || res.Best.Concurrency != 8 {
		t.Fatalf("probed %v, best %d (%s)", probed, res.Best.Concurrency, res.Why)
	}
	// 16 passed too: the best is not the highest that passed
	if res.Highest != 16 {
		t.Errorf("highest passing level %d, want 16", res.Highest)
	}
	var p2 []int
	res, _ = tpsbench.FindMax(context.Background(), 4, 64, fakeProbe(1, &p2))
	if res.Found {
		t.Errorf("found %d though every level fails", res.Best.Concurrency)
	}
}
