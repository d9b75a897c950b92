package servergrid

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SearchBudget bounds a search: at most Runs points measured, and none
// begun once Time has passed since it began (0: no bound of that kind).
type SearchBudget struct {
	Runs int
	Time time.Duration
}

// SearchOutcome is a search's answer: the point it found (Found false
// when none met every target) and how it ended.
type SearchOutcome struct {
	Best  Result
	Found bool
	Why   string
}

// errSpent ends a search whose budget is spent.
var errSpent = errors.New("budget spent")

// Search measures as few of the grid's points as find the highest values
// meeting every target. A key's values are taken in the order given, as
// a scale along which the targets hold up to some value and fail past it
// (max_num_seqs=1,2,4,...,256). With one key (or a zipped grid, whose
// i-th values go together) it is a bisection: from the first value it
// doubles the index until a point fails or the values end, then bisects
// to adjacent values. With several keys it is a coordinate search: each
// key in turn, the first first, is bisected so with the others held at
// the values found for them (at first, their first values). The answer
// is the point of every key's value found, when it met the targets.
// Every point measured is a result, in the order measured; a spent
// budget ends the search with what it found.
func Search(ctx context.Context, o Options, budget SearchBudget, measure Measure) ([]Result, SearchOutcome, error) {
	if o.URL == "" {
		o.URL = "http://127.0.0.1:{port}"
	}
	var out SearchOutcome
	if o.DryRun {
		return nil, out, errors.New("a search measures the points it chooses: it has no dry run")
	}
	if budget.Runs < 0 || budget.Time < 0 {
		return nil, out, fmt.Errorf("search budget of %d runs and %v: want neither negative", budget.Runs, budget.Time)
	}
	if err := o.CheckDir(); err != nil {
		return nil, out, err
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format, args...)
		}
	}
	sizes := make([]int, len(o.Grid.Keys)) // each dimension's values
	for k, vs := range o.Grid.Values {
		sizes[k] = len(vs)
	}
	if o.Grid.Zip {
		sizes = sizes[:1]
	}
	var results []Result
	measured := map[string]Result{}
	began := time.Now()
	probe := func(at []int) (Result, bool, error) {
		p, index := o.Grid.pointAt(at)
		if r, ok := measured[p.String()]; ok {
			return r, r.Err == "" && r.Pass, nil
		}
		switch {
		case budget.Runs > 0 && len(results) >= budget.Runs:
			out.Why = fmt.Sprintf("the budget of %d runs was spent", budget.Runs)
			return Result{}, false, errSpent
		case budget.Time > 0 && len(results) > 0 && time.Since(began) >= budget.Time:
			out.Why = fmt.Sprintf("the budget of %v was spent", budget.Time)
			return Result{}, false, errSpent
		}
		r, err := o.point(ctx, index, p, measure, logf)
		if err != nil {
			return r, false, err
		}
		results = append(results, r)
		measured[p.String()] = r
		return r, r.Err == "" && r.Pass, nil
	}
	at := make([]int, len(sizes))
	var whys []string
	for d, n := range sizes {
		found, why, err := bisect(d, n, at, probe)
		if err != nil {
			markPareto(results)
			if errors.Is(err, errSpent) {
				at[d] = found // the highest that passed before the budget ran out
				return results, o.answer(at, measured, out), nil
			}
			return results, out, err
		}
		at[d] = found
		whys = append(whys, o.Grid.dimName(d)+": "+why)
	}
	markPareto(results)
	out.Why = strings.Join(whys, "; ")
	return results, o.answer(at, measured, out), nil
}

// answer is the outcome at the values found, when that point was
// measured and met the targets.
func (o Options) answer(at []int, measured map[string]Result, out SearchOutcome) SearchOutcome {
	p, _ := o.Grid.pointAt(at)
	if r, ok := measured[p.String()]; ok && r.Err == "" && r.Pass {
		out.Best, out.Found = r, true
	}
	return out
}

// bisect finds the highest index of dimension d (of n values) whose point
// meets the targets, the other dimensions as at holds them.
func bisect(d, n int, at []int, probe func([]int) (Result, bool, error)) (int, string, error) {
	try := func(i int) (bool, error) {
		at[d] = i
		_, pass, err := probe(at)
		return pass, err
	}
	ok, err := try(0)
	if err != nil {
		return 0, "", err
	}
	if !ok {
		return 0, "its first value missed the targets", nil
	}
	pass, fail := 0, -1
	for next := 1; next < n; next = min(2*next+1, n-1) {
		ok, err := try(next)
		if err != nil {
			return pass, "", err
		}
		if !ok {
			fail = next
			break
		}
		pass = next
		if next == n-1 {
			break
		}
	}
	if fail < 0 {
		return pass, "the targets held at its last value", nil
	}
	for fail-pass > 1 {
		mid := (pass + fail) / 2
		ok, err := try(mid)
		if err != nil {
			return pass, "", err
		}
		if ok {
			pass = mid
		} else {
			fail = mid
		}
	}
	return pass, fmt.Sprintf("value %d of %d the highest meeting the targets, the next missed them", pass+1, n), nil
}

// pointAt is the point of the grid at one index a dimension (a key, or
// for a zipped grid the values' place), and its place among Points.
func (g Grid) pointAt(at []int) (Point, int) {
	p := Point{Keys: g.Keys, Values: make([]string, len(g.Keys))}
	if g.Zip {
		for k := range g.Keys {
			p.Values[k] = g.Values[k][at[0]]
		}
		return p, at[0]
	}
	index := 0
	for k := range g.Keys {
		p.Values[k] = g.Values[k][at[k]]
		index = index*len(g.Values[k]) + at[k]
	}
	return p, index
}

// dimName names a dimension of a search: its key, or the zipped keys.
func (g Grid) dimName(d int) string {
	if g.Zip {
		return strings.Join(g.Keys, "+")
	}
	return g.Keys[d]
}
