package tpsbench

import (
	"context"
	"fmt"

	"github.com/tpsbench/tpsbench/metrics"
)

// Probe measures one load level (a concurrency) and returns its summary,
// with its targets' verdicts.
type Probe func(ctx context.Context, level int) (metrics.Summary, error)

// MaxSearch is the outcome of FindMax: every level measured, in order of
// level, and the best one that met every target (Found false if none did).
type MaxSearch struct {
	Steps []metrics.Summary
	Best  metrics.Summary
	Found bool
	// Highest is the highest level that met every target; past saturation
	// it may give less system TPS than Best.
	Highest int
	// Why says how the search ended.
	Why string
}

// FindMax searches the highest concurrency from start to limit whose
// targets all hold: Search over the concurrency, with no budget.
func FindMax(ctx context.Context, start, limit int, probe Probe) (*MaxSearch, error) {
	if start < 1 || limit < start {
		return nil, fmt.Errorf("search range %d..%d: want 1 <= start <= limit", start, limit)
	}
	found, err := Search(ctx, Dimension{Name: DimConcurrency, Lo: float64(start), Hi: float64(limit)}, Budget{},
		func(ctx context.Context, v float64) (metrics.Summary, error) { return probe(ctx, int(v)) })
	if err != nil {
		return nil, err
	}
	res := &MaxSearch{Best: found.Best.Summary, Found: found.Found, Highest: int(found.Highest), Why: found.Why}
	for _, p := range found.Probes {
		res.Steps = append(res.Steps, p.Summary)
	}
	return res, nil
}
