package codeshape

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tpsbench/tpsbench"

// TestDesignPicture: docs/design.md's block of packages names every
// package of the module (but the benchmarks' programs and the
// end-to-end tests) once, with exactly the packages of the module it
// imports (internal helpers left out), each of them on a line above it.
func TestDesignPicture(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```packages\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok {
		t.Fatal("docs/design.md has no ```packages block")
	}
	drawn := map[string][]string{}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		name, imports, _ := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if _, twice := drawn[name]; twice {
			t.Errorf("%s drawn twice", name)
		}
		list := strings.Fields(imports)
		for _, imp := range list {
			if !slices.Contains(order, imp) {
				t.Errorf("%s imports %s, which is not on a line above it", name, imp)
			}
		}
		drawn[name] = list
		order = append(order, name)
	}
	found := packages(t, root)
	for name, imports := range found {
		list, ok := drawn[name]
		switch {
		case !ok:
			t.Errorf("package %s is not on the picture", name)
		case !slices.Equal(list, imports):
			t.Errorf("%s: drawn importing %v, imports %v", name, list, imports)
		}
	}
	for name := range drawn {
		if _, ok := found[name]; !ok {
			t.Errorf("%s is drawn but is no package", name)
		}
	}
}

// packages are the module's packages (by their path below the module,
// the root's "tpsbench"), each with the packages of the module its
// files import in any build, sorted, internal helpers left out.
func packages(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || rel == "bench" || rel == "e2e") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(filepath.Dir(rel))
		if name == "." {
			name = "tpsbench"
		}
		if _, ok := out[name]; !ok {
			out[name] = nil
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			imp, ok := strings.CutPrefix(p, module)
			imp = strings.TrimPrefix(imp, "/")
			if imp == "" {
				imp = "tpsbench"
			}
			if ok && !strings.HasPrefix(imp, "internal/") && !slices.Contains(out[name], imp) {
				out[name] = append(out[name], imp)
			}
		}
		slices.Sort(out[name])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
