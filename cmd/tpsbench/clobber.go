package main

import (
	"os"

	"github.com/tpsbench/tpsbench/internal/outfile"
)

// namedPath is a file a command reads or writes, and what names it (a
// flag, or "an input").
type namedPath struct{ name, path string }

// checkOutputs refuses outputs that are the same file as an input or as
// each other: --records run.jsonl --out run.jsonl would replace the
// records by the report, and merge -o a.jsonl a.jsonl would empty a.jsonl
// before reading it. Empty paths are ignored; a path that does not exist
// yet matches only the same name. It also refuses, before anything is
// measured, an output that cannot be written or that exists and is not
// to be replaced (force: --force).
func checkOutputs(outputs, inputs []namedPath, force bool) error {
	for i, out := range outputs {
		if out.path == "" {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && sameFile(out.path, in.path) {
				return usagef("%s %s is also %s: writing it would destroy what is read from it", out.name, out.path, in.name)
			}
		}
		for _, other := range outputs[:i] {
			if other.path != "" && sameFile(out.path, other.path) {
				return usagef("%s and %s name the same file, %s", other.name, out.name, out.path)
			}
		}
		if err := outfile.Check(out.path, force); err != nil {
			return usagef("%s: %v", out.name, err)
		}
	}
	return nil
}

func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// inputFiles names each of paths "an input file".
func inputFiles(paths []string) []namedPath {
	var out []namedPath
	for _, p := range paths {
		out = append(out, namedPath{"an input file", p})
	}
	return out
}
