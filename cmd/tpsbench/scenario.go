package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/tpsbench/tpsbench/internal/fileread"
)

// maxScenario bounds a scenario file; one is a screenful.
const maxScenario = 1 << 20

// applyScenario sets the flags a scenario file names, as GuideLLM's
// --scenario does: a YAML (or JSON) mapping from flag names to values, a
// list for a flag that repeats (model, target, header) or for one that
// takes a comma-separated list (sweep). What the command line gives wins.
func applyScenario(fs *pflag.FlagSet, path string) error {
	data, err := fileread.AtMost(path, maxScenario)
	if err != nil {
		return inputError{fmt.Errorf("reading scenario: %w", err)}
	}
	settings, err := parseScenario(data)
	if err == nil {
		err = applySettings(fs, settings)
	}
	if err != nil {
		return usagef("scenario %s: %v", path, err)
	}
	return nil
}

// applySettings sets each flag the command line left alone.
func applySettings(fs *pflag.FlagSet, settings []setting) error {
	for _, s := range settings {
		f := fs.Lookup(s.name)
		switch {
		case f == nil || s.name == "scenario" || s.name == "help":
			return inputError{fmt.Errorf("%q is not a setting of tpsbench run (keys are its flag names, such as max-tokens)", s.name)}
		case f.Changed:
			continue // the command line wins
		}
		values := s.values
		if len(values) > 1 && !strings.HasSuffix(f.Value.Type(), "Slice") && !strings.HasSuffix(f.Value.Type(), "Array") {
			values = []string{strings.Join(values, ",")}
		}
		for _, v := range values {
			if err := fs.Set(s.name, v); err != nil {
				return fmt.Errorf("%s: %v", s.name, err)
			}
		}
	}
	return nil
}

// setting is one key of a scenario and its values as flag text.
type setting struct {
	name   string
	values []string
}

// parseScenario reads a scenario's settings, in key order.
func parseScenario(data []byte) ([]setting, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var out []setting
	for _, name := range slices.Sorted(maps.Keys(doc)) {
		var values []string
		switch v := doc[name].(type) {
		case []any:
			if len(v) == 0 {
				return nil, fmt.Errorf("%s: an empty list", name)
			}
			for _, item := range v {
				s, err := scalar(item)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				values = append(values, s)
			}
		default:
			s, err := scalar(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			values = []string{s}
		}
		out = append(out, setting{name: name, values: values})
	}
	return out, nil
}

// scalar is a YAML value as a flag would take it on the command line.
func scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case int:
		return strconv.Itoa(v), nil
	case uint64:
		return strconv.FormatUint(v, 10), nil
	case float64:
		if math.IsInf(v, 1) {
			return "inf", nil
		}
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case nil:
		return "", fmt.Errorf("no value")
	case map[string]any:
		return "", fmt.Errorf("want a value or a list of values, not a mapping")
	}
	return "", fmt.Errorf("want a value or a list of values, not %T", v)
}
