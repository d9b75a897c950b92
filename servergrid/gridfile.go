package servergrid

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/tpsbench/tpsbench/internal/fileread"
)

// maxGridFile bounds a grid file; ten thousand points fit in far less.
const maxGridFile = 4 << 20

// LoadGrid reads a grid from a YAML (or JSON) file (ParseGridFile).
func LoadGrid(path string, zip bool) (Grid, error) {
	data, err := fileread.AtMost(path, maxGridFile)
	if err != nil {
		return Grid{}, fmt.Errorf("reading the grid: %w", err)
	}
	g, err := ParseGridFile(data, zip)
	if err != nil {
		return Grid{}, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// ParseGridFile reads a grid written as YAML or JSON, in one of two
// shapes: a mapping from each key to its values (a list, or one value),
// taken as a product or with zip together, in the file's order; or a list
// of points, each a mapping from every key to its value, as vLLM's bench
// sweep --serve-params file is (its points are then taken as listed).
func ParseGridFile(data []byte, zip bool) (Grid, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Grid{}, fmt.Errorf("not YAML or JSON: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return Grid{}, errors.New("an empty grid file")
	}
	root := doc.Content[0]
	var g Grid
	var err error
	switch root.Kind {
	case yaml.MappingNode:
		g, err = keyedGrid(root, zip)
	case yaml.SequenceNode:
		g, err = listedPoints(root)
	default:
		err = errors.New("want a mapping of keys to their values, or a list of points")
	}
	if err != nil {
		return Grid{}, err
	}
	return g, g.check()
}

// keyedGrid reads {key: [values]} in the file's order.
func keyedGrid(m *yaml.Node, zip bool) (Grid, error) {
	g := Grid{Zip: zip}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i], m.Content[i+1]
		var values []string
		switch val.Kind {
		case yaml.ScalarNode:
			values = []string{val.Value}
		case yaml.SequenceNode:
			for _, v := range val.Content {
				if v.Kind != yaml.ScalarNode {
					return Grid{}, fmt.Errorf("line %d: %s's values are single values (a number, a word, true or false)", v.Line, key.Value)
				}
				values = append(values, v.Value)
			}
		default:
			return Grid{}, fmt.Errorf("line %d: %s's values are a list of single values", val.Line, key.Value)
		}
		g.Keys, g.Values = append(g.Keys, key.Value), append(g.Values, values)
	}
	return g, nil
}

// listedPoints reads [{key: value, ...}, ...]: every point names the same
// keys, in any order.
func listedPoints(seq *yaml.Node) (Grid, error) {
	g := Grid{Zip: true}
	index := map[string]int{}
	for n, p := range seq.Content {
		if p.Kind != yaml.MappingNode {
			return Grid{}, fmt.Errorf("line %d: a point is a mapping of keys to values", p.Line)
		}
		if n == 0 {
			for i := 0; i+1 < len(p.Content); i += 2 {
				index[p.Content[i].Value] = len(g.Keys)
				g.Keys = append(g.Keys, p.Content[i].Value)
				g.Values = append(g.Values, nil)
			}
		}
		if len(p.Content)/2 != len(g.Keys) {
			return Grid{}, fmt.Errorf("line %d: point %d has %d keys, the first %d: every point names the same keys", p.Line, n+1, len(p.Content)/2, len(g.Keys))
		}
		for i := 0; i+1 < len(p.Content); i += 2 {
			key, val := p.Content[i], p.Content[i+1]
			k, ok := index[key.Value]
			switch {
			case !ok:
				return Grid{}, fmt.Errorf("line %d: %s is not a key of the first point", key.Line, key.Value)
			case val.Kind != yaml.ScalarNode:
				return Grid{}, fmt.Errorf("line %d: %s's value is a single value", val.Line, key.Value)
			case len(g.Values[k]) != n:
				return Grid{}, fmt.Errorf("line %d: %s given twice in point %d", key.Line, key.Value, n+1)
			}
			g.Values[k] = append(g.Values[k], val.Value)
		}
	}
	return g, nil
}
