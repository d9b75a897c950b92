package main

import (
	"testing"
)

// FuzzFlagValues feeds arbitrary text to the parsers of flag values that
// are not plain numbers: they return a value or an error, never panic.
func FuzzFlagValues(f *testing.F) {
	f.Add("1,4,8,16,32")
	f.Add("X-Key: v")
	f.Add("name=http://h:8000#model")
	f.Fuzz(func(t *testing.T, s string) {
		if levels, err := parseLevels(s); err == nil {
			for _, l := range levels {
				if l < 1 {
					t.Fatalf("level %d accepted from %q", l, s)
				}
			}
		}
		_, _ = parseHeaders([]string{s})
		_, _ = parseTargetSpecs(&runFlags{targets: []string{s}})
	})
}
