package tpsbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/metrics"
)

// What an adaptive search varies: a closed loop's users, or an open
// loop's request rate.
const (
	DimConcurrency = "concurrency"
	DimRate        = "rate"
)

// Dimension is the one load setting an adaptive search varies, between
// Lo and Hi (AIPerf's --search-space "concurrency:1,1000:int").
type Dimension struct {
	Name   string // DimConcurrency (whole numbers) or DimRate (requests a second)
	Lo, Hi float64
	// Precision is how near the highest passing value and the lowest
	// failing one must be, as a share of the passing one, for the
	// search to end; 0 means 10%. Concurrencies also end adjacent.
	Precision float64
}

// ParseDimension reads "NAME:LO,HI" with an optional ":int" or ":real"
// (AIPerf's form): concurrency takes whole numbers from 1, rate any
// number above 0.
func ParseDimension(s string) (Dimension, error) {
	name, rest, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return Dimension{}, fmt.Errorf("search space %q: want NAME:LO,HI, e.g. concurrency:1,256 or rate:0.5,64", s)
	}
	bounds, kind, _ := strings.Cut(rest, ":")
	lo, hi, ok := strings.Cut(bounds, ",")
	d := Dimension{Name: strings.TrimSpace(name)}
	var errLo, errHi error
	d.Lo, errLo = strconv.ParseFloat(strings.TrimSpace(lo), 64)
	d.Hi, errHi = strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if !ok || errLo != nil || errHi != nil {
		return Dimension{}, fmt.Errorf("search space %q: want NAME:LO,HI with two numbers", s)
	}
	switch kind = strings.TrimSpace(kind); {
	case kind == "":
	case kind == "int" && d.Name == DimConcurrency, kind == "real" && d.Name == DimRate:
	default:
		return Dimension{}, fmt.Errorf("search space %q: %s is %s", s, d.Name, map[bool]string{true: "int", false: "real"}[d.Name == DimConcurrency])
	}
	return d, d.Check()
}

// Check says what is wrong with the dimension, if anything.
func (d Dimension) Check() error {
	switch {
	case d.Name != DimConcurrency && d.Name != DimRate:
		return fmt.Errorf("search dimension %q: want %s or %s", d.Name, DimConcurrency, DimRate)
	case !(d.Lo > 0) || !(d.Hi >= d.Lo) || math.IsInf(d.Hi, 1):
		return fmt.Errorf("search %s from %g to %g: want 0 < LO <= HI", d.Name, d.Lo, d.Hi)
	case d.Name == DimConcurrency && (d.Lo != math.Trunc(d.Lo) || d.Hi != math.Trunc(d.Hi) || d.Hi > 1<<20):
		return fmt.Errorf("search concurrency from %g to %g: want whole numbers up to %d", d.Lo, d.Hi, 1<<20)
	case !(d.Precision >= 0 && d.Precision < 1):
		return fmt.Errorf("search precision %g: want a share from 0 to under 1", d.Precision)
	}
	return nil
}

// round is v as the dimension takes it: a whole concurrency, a rate of
// three significant digits (so that a step's label shows it exactly).
func (d Dimension) round(v float64) float64 {
	if d.Name == DimConcurrency {
		return math.Round(v)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}

// near says the search has narrowed pass (passing) and fail (failing)
// enough to stop.
func (d Dimension) near(pass, fail float64) bool {
	p := d.Precision
	if p == 0 {
		p = 0.1
	}
	return fail-pass <= p*pass || (d.Name == DimConcurrency && fail-pass <= 1)
}

// Budget bounds an adaptive search: at most Runs probes, and none begun
// once Time has passed since the search began (0: no bound of that kind).
type Budget struct {
	Runs int
	Time time.Duration
}

// SearchProbe is one value measured.
type SearchProbe struct {
	Value   float64
	Summary metrics.Summary
	Pass    bool // every target held
}

// SearchResult is an adaptive search's outcome: every probe in the order
// of its value, the best passing one (Found false when none passed), and
// why the search ended.
type SearchResult struct {
	Dimension Dimension
	Probes    []SearchProbe
	Best      SearchProbe
	Found     bool
	// Highest is the highest value that met every target; past
	// saturation it may give less system TPS than Best.
	Highest float64
	Why     string
}

// ValueProbe measures the load at one value of a search's dimension.
type ValueProbe func(ctx context.Context, value float64) (metrics.Summary, error)

// errBudget ends a search whose budget is spent.
var errBudget = errors.New("budget spent")

// Search finds the highest value of dim whose targets all hold,
// bracketing rather than walking a grid: from dim.Lo it doubles the value
// until the targets fail, the system TPS stops growing (saturation: under
// 5% more than the value before) or dim.Hi is reached, then bisects
// between the highest value that passed and the lowest that failed until
// they are near (dim.Precision). The best is the passing value of the
// highest system TPS. A spent budget ends the search where it stands,
// with what it measured.
func Search(ctx context.Context, dim Dimension, budget Budget, probe ValueProbe) (*SearchResult, error) {
	if err := dim.Check(); err != nil {
		return nil, err
	}
	if budget.Runs < 0 || budget.Time < 0 {
		return nil, fmt.Errorf("search budget of %d runs and %v: want neither negative", budget.Runs, budget.Time)
	}
	res := &SearchResult{Dimension: dim}
	began := time.Now()
	measured := map[float64]SearchProbe{}
	run := func(v float64) (SearchProbe, error) {
		if p, ok := measured[v]; ok {
			return p, nil
		}
		switch {
		case budget.Runs > 0 && len(measured) >= budget.Runs:
			res.Why = fmt.Sprintf("the budget of %d runs was spent", budget.Runs)
			return SearchProbe{}, errBudget
		case budget.Time > 0 && len(measured) > 0 && time.Since(began) >= budget.Time: // a search measures at least one value
			res.Why = fmt.Sprintf("the budget of %v was spent", budget.Time)
			return SearchProbe{}, errBudget
		}
		s, err := probe(ctx, v)
		if err != nil {
			return SearchProbe{}, err
		}
		p := SearchProbe{Value: v, Summary: s, Pass: metrics.Pass([]metrics.Summary{s})}
		measured[v] = p
		return p, nil
	}
	err := bracket(ctx, dim, run, res)
	if err != nil && !errors.Is(err, errBudget) {
		return nil, err
	}
	values := make([]float64, 0, len(measured))
	for v := range measured {
		values = append(values, v)
	}
	sort.Float64s(values)
	for _, v := range values {
		p := measured[v]
		res.Probes = append(res.Probes, p)
		if !p.Pass {
			continue
		}
		res.Highest = v
		if !res.Found || p.Summary.SystemTPS > res.Best.Summary.SystemTPS {
			res.Best, res.Found = p, true
		}
	}
	return res, nil
}

// bracket doubles, then bisects, setting res.Why as it ends.
func bracket(ctx context.Context, dim Dimension, run func(float64) (SearchProbe, error), res *SearchResult) error {
	pass, fail := 0.0, 0.0
	var prevTPS float64
	for v := dim.Lo; ; v = min(dim.round(v*2), dim.Hi) {
		p, err := run(v)
		if err != nil {
			return err
		}
		if !p.Pass {
			fail = v
			res.Why = fmt.Sprintf("targets missed at %s %g", dim.Name, v)
			break
		}
		pass = v
		if prevTPS > 0 && p.Summary.SystemTPS < prevTPS*1.05 {
			res.Why = fmt.Sprintf("saturated: system TPS grew under 5%% from the previous %s to %g", dim.Name, v)
			break
		}
		prevTPS = p.Summary.SystemTPS
		if v == dim.Hi {
			res.Why = fmt.Sprintf("targets held up to the highest %s, %g", dim.Name, dim.Hi)
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	for fail > 0 && pass > 0 && !dim.near(pass, fail) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		mid := dim.round((pass + fail) / 2)
		if mid <= pass || mid >= fail {
			break // no value the dimension takes lies between
		}
		p, err := run(mid)
		if err != nil {
			return err
		}
		if p.Pass {
			pass = mid
		} else {
			fail = mid
		}
	}
	return nil
}

// CoordinateProbe measures the load at one value of each of a search's
// dimensions.
type CoordinateProbe func(ctx context.Context, values []float64) (metrics.Summary, error)

// CoordinateResult is a search of several dimensions: every probe in the
// order measured, the values found (each dimension's Search answer, the
// others held), and the probe at them when it met every target.
type CoordinateResult struct {
	Dimensions []Dimension
	Probes     []CoordinateProbeResult
	Values     []float64 // the values found, a dimension each
	Best       CoordinateProbeResult
	Found      bool
	Why        string
}

// CoordinateProbeResult is one tuple of values measured.
type CoordinateProbeResult struct {
	Values  []float64
	Summary metrics.Summary
	Pass    bool
}

// SearchCoordinates searches several dimensions one after another (a
// coordinate search): each in order is searched as Search does, the
// others held at the values found for them (at first, their lowest), and
// keeps its best value. The budget is the whole search's; a tuple is
// measured once. Dimensions must differ.
func SearchCoordinates(ctx context.Context, dims []Dimension, budget Budget, probe CoordinateProbe) (*CoordinateResult, error) {
	seen := map[string]bool{}
	for _, d := range dims {
		if seen[d.Name] {
			return nil, fmt.Errorf("search dimension %s given twice", d.Name)
		}
		seen[d.Name] = true
	}
	if len(dims) == 0 {
		return nil, errors.New("a search needs a dimension")
	}
	res := &CoordinateResult{Dimensions: dims, Values: make([]float64, len(dims))}
	for i, d := range dims {
		res.Values[i] = d.Lo
	}
	measured := map[string]int{} // the tuple -> its probe
	began := time.Now()
	var whys []string
	for i, d := range dims {
		left := budget
		if budget.Runs > 0 {
			if left.Runs = budget.Runs - len(res.Probes); left.Runs <= 0 {
				res.Why = fmt.Sprintf("the budget of %d runs was spent", budget.Runs)
				break
			}
		}
		if budget.Time > 0 {
			if left.Time = budget.Time - time.Since(began); left.Time <= 0 {
				res.Why = fmt.Sprintf("the budget of %v was spent", budget.Time)
				break
			}
		}
		one, err := Search(ctx, d, left, func(ctx context.Context, v float64) (metrics.Summary, error) {
			values := append([]float64(nil), res.Values...)
			values[i] = v
			key := fmt.Sprint(values)
			if j, ok := measured[key]; ok {
				return res.Probes[j].Summary, nil
			}
			s, err := probe(ctx, values)
			if err != nil {
				return s, err
			}
			measured[key] = len(res.Probes)
			res.Probes = append(res.Probes, CoordinateProbeResult{Values: values, Summary: s, Pass: metrics.Pass([]metrics.Summary{s})})
			return s, nil
		})
		if err != nil {
			return nil, err
		}
		if one.Found {
			res.Values[i] = one.Best.Value
		}
		whys = append(whys, d.Name+": "+one.Why)
		if strings.Contains(one.Why, "budget") {
			break
		}
	}
	if res.Why == "" {
		res.Why = strings.Join(whys, "; ")
	} else if len(whys) > 0 {
		res.Why = strings.Join(whys, "; ") + "; " + res.Why
	}
	if j, ok := measured[fmt.Sprint(res.Values)]; ok && res.Probes[j].Pass {
		res.Best, res.Found = res.Probes[j], true
	}
	return res, nil
}
