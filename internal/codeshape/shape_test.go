package codeshape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	maxFunctionLines = 100
	maxFileLines     = 500
)

// longFiles are the files allowed past maxFileLines, and why.
var longFiles = map[string]string{
	// the Go side of the AVX2 and AVX-512 kernels: one declaration and
	// dispatch per assembly routine, kept beside each other
	"engine/llama/kernels_amd64.go": "assembly-adjacent",
}

// TestCodeShape: every function (tests included) within 100 lines, every
// non-test file within 500.
func TestCodeShape(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		if n := fset.Position(f.End()).Line; !strings.HasSuffix(rel, "_test.go") && n > maxFileLines && longFiles[rel] == "" {
			t.Errorf("%s: %d lines, more than %d: split it by idea (or name it in longFiles, with its reason)", rel, n, maxFileLines)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := "a function literal"
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body, name = fn.Body, fn.Name.Name
			case *ast.FuncLit:
				body = fn.Body
			}
			if body != nil {
				from, to := fset.Position(n.Pos()).Line, fset.Position(body.End()).Line
				if lines := to - from + 1; lines > maxFunctionLines {
					t.Errorf("%s:%d: %s is %d lines, more than %d", rel, from, name, lines, maxFunctionLines)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
