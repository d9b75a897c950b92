package tpsbench

import (
	"context"
	"fmt"
	"sort"

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

// FindMax searches the highest load level whose targets all hold,
// bracketing rather than walking a grid: it doubles the level from start
// until the targets fail, the system TPS stops growing (saturation: under
// 5% more than the level before) or limit is reached, then bisects between
// the last level that passed and the first that failed until they are
// within 10% (or adjacent). The answer is the passing level with the
// highest system TPS.
func FindMax(ctx context.Context, start, limit int, probe Probe) (*MaxSearch, error) {
	if start < 1 || limit < start {
		return nil, fmt.Errorf("search range %d..%d: want 1 <= start <= limit", start, limit)
	}
	res := &MaxSearch{}
	measured := map[int]metrics.Summary{}
	run := func(level int) (metrics.Summary, error) {
		if s, ok := measured[level]; ok {
			return s, nil
		}
		s, err := probe(ctx, level)
		if err != nil {
			return s, err
		}
		measured[level] = s
		return s, nil
	}
	pass, fail := 0, 0
	var prevTPS float64
	for level := start; ; level = min(level*2, limit) {
		s, err := run(level)
		if err != nil {
			return nil, err
		}
		if !metrics.Pass([]metrics.Summary{s}) {
			fail = level
			res.Why = fmt.Sprintf("targets missed at concurrency %d", level)
			break
		}
		pass = level
		if prevTPS > 0 && s.SystemTPS < prevTPS*1.05 {
			res.Why = fmt.Sprintf("saturated: system TPS grew under 5%% from the previous level to concurrency %d", level)
			break
		}
		prevTPS = s.SystemTPS
		if level == limit {
			res.Why = fmt.Sprintf("targets held up to the limit of %d", limit)
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	for fail > 0 && pass > 0 && fail-pass > 1 && float64(fail-pass) > 0.1*float64(pass) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		mid := (pass + fail) / 2
		s, err := run(mid)
		if err != nil {
			return nil, err
		}
		if metrics.Pass([]metrics.Summary{s}) {
			pass = mid
		} else {
			fail = mid
		}
	}
	levels := make([]int, 0, len(measured))
	for l := range measured {
		levels = append(levels, l)
	}
	sort.Ints(levels)
	for _, l := range levels {
		s := measured[l]
		res.Steps = append(res.Steps, s)
		if !metrics.Pass([]metrics.Summary{s}) {
			continue
		}
		res.Highest = l
		if !res.Found || s.SystemTPS > res.Best.SystemTPS {
			res.Best, res.Found = s, true
		}
	}
	return res, nil
}
