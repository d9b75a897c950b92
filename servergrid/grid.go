// Package servergrid measures a server under each of several configurations:
// for every point of a grid of server parameters it starts the server
// with them, waits until it answers, measures it, and stops it, keeping
// each point's records and report in a folder of its own (so a sweep can
// be resumed), and names the Pareto front of throughput against what a
// user feels, and the best point under the targets (vLLM's bench sweep
// serve, SGLang's auto_benchmark).
package servergrid

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Grid is the server parameters to try: each key with its values. Points
// are every combination (the product), or with Zip the i-th values of
// every key together.
type Grid struct {
	Keys   []string
	Values [][]string
	Zip    bool
}

// maxPoints bounds a sweep.
const maxPoints = 10000

var keyName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// ParseGrid reads "key=v1,v2 other=a,b": keys and their values, keys
// apart by spaces, values by commas.
func ParseGrid(s string, zip bool) (Grid, error) {
	g := Grid{Zip: zip}
	for _, field := range strings.Fields(s) {
		key, vals, ok := strings.Cut(field, "=")
		if !ok {
			return Grid{}, fmt.Errorf("%q: want KEY=V1,V2 (a key of letters, digits, _ . -)", field)
		}
		var values []string
		for _, v := range strings.Split(vals, ",") {
			if v = strings.TrimSpace(v); v != "" {
				values = append(values, v)
			}
		}
		g.Keys, g.Values = append(g.Keys, key), append(g.Values, values)
	}
	return g, g.check()
}

// check holds a grid to its rules: named keys, each once and with values,
// port left to the sweep, as many values a key when zipped, and a bounded
// number of points.
func (g Grid) check() error {
	seen := map[string]bool{}
	for i, key := range g.Keys {
		switch {
		case !keyName.MatchString(key):
			return fmt.Errorf("%q: want KEY=V1,V2 (a key of letters, digits, _ . -)", key)
		case key == "port":
			return errors.New("port is the sweep's own placeholder: the server's port, picked free")
		case seen[key]:
			return fmt.Errorf("%s given twice", key)
		case len(g.Values[i]) == 0:
			return fmt.Errorf("%s has no values", key)
		}
		seen[key] = true
	}
	if len(g.Keys) == 0 {
		return errors.New("an empty grid: give KEY=V1,V2")
	}
	if n := g.size(); n > maxPoints {
		return fmt.Errorf("%d points: at most %d", n, maxPoints)
	}
	if g.Zip {
		for i, v := range g.Values {
			if len(v) != len(g.Values[0]) {
				return fmt.Errorf("zipped keys need as many values each: %s has %d, %s %d", g.Keys[i], len(v), g.Keys[0], len(g.Values[0]))
			}
		}
	}
	return nil
}

func (g Grid) size() int {
	if g.Zip {
		return len(g.Values[0])
	}
	n := 1
	for _, v := range g.Values {
		n *= len(v)
		if n > maxPoints {
			return n
		}
	}
	return n
}

// Point is one configuration: a value for each of the grid's keys.
type Point struct {
	Keys, Values []string
}

// Points are the grid's configurations, in order (the last key varying
// fastest in a product).
func (g Grid) Points() []Point {
	n := g.size()
	out := make([]Point, 0, n)
	for i := range n {
		p := Point{Keys: g.Keys, Values: make([]string, len(g.Keys))}
		rest := i
		for k := len(g.Keys) - 1; k >= 0; k-- {
			if g.Zip {
				p.Values[k] = g.Values[k][i]
				continue
			}
			p.Values[k] = g.Values[k][rest%len(g.Values[k])]
			rest /= len(g.Values[k])
		}
		out = append(out, p)
	}
	return out
}

// String is the point as "key=value" pairs.
func (p Point) String() string {
	parts := make([]string, len(p.Keys))
	for i, k := range p.Keys {
		parts[i] = k + "=" + p.Values[i]
	}
	return strings.Join(parts, " ")
}

// Dir is a folder name for the point, the i-th of the sweep.
func (p Point) Dir(i int) string {
	name := strings.NewReplacer("/", "_", " ", "_", "=", "-").Replace(strings.ReplaceAll(p.String(), " ", ","))
	if len(name) > 100 {
		name = name[:100]
	}
	return fmt.Sprintf("%03d-%s", i, name)
}

var placeholder = regexp.MustCompile(`\{([^{}]*)\}`)

// Expand puts the point's values and the port into a template's {key}
// and {port} placeholders; a placeholder the point does not have is an
// error.
func (p Point) Expand(tmpl string, port int) (string, error) {
	return p.expand(tmpl, port, func(v string) string { return v })
}

// ExpandCommand is Expand for a command line a shell runs: each value
// that holds more than letters, digits and _./:=,+@%- is quoted, so it is
// one argument whatever it holds (a value of "4; rm -rf ~" or "$(id)" ran
// as a command of its own).
func (p Point) ExpandCommand(tmpl string, port int) (string, error) {
	return p.expand(tmpl, port, shellWord)
}

// expand fills tmpl's placeholders, each value written by word.
func (p Point) expand(tmpl string, port int, word func(string) string) (string, error) {
	var missing []string
	out := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		key := m[1 : len(m)-1]
		if key == "port" {
			return strconv.Itoa(port)
		}
		for i, k := range p.Keys {
			if k == key {
				return word(p.Values[i])
			}
		}
		missing = append(missing, key)
		return m
	})
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", fmt.Errorf("%q: no value for {%s} (the grid's keys are %s, and port)", tmpl, strings.Join(missing, "}, {"), strings.Join(p.Keys, ", "))
	}
	return out, nil
}

// plainWord is a value a shell reads as one word as it stands.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=,+@%-]+$`)

// shellWord is v as one word of this system's shell.
func shellWord(v string) string {
	if plainWord.MatchString(v) {
		return v
	}
	return quote(v)
}
