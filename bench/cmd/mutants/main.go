// Command mutants scores how well a package's tests pin its code: it
// makes small changes to the package's source (mutants: a comparison or
// arithmetic operator swapped, && and || swapped, a condition negated, a
// negation dropped, an integer or float constant changed, constants'
// declarations included, true and false swapped, ++ and -- swapped, +=
// and -= swapped, an assignment or a call dropped), one at a time in a
// copy of the module, and runs the tests on each. A mutant the tests fail
// is killed; one they pass survived; one that does not build is not
// viable and not counted. The score is killed / (killed + survived), with
// the mutants listed as equivalent (-equivalent: lines of
// "file | line text | column in it | description" as it prints them, a change that cannot
// alter behaviour) set aside, and with them, unlisted, every constant (a number, true or false) returned beside a non-nil error (the 0 of
// "return 0, fmt.Errorf(...)"): by Go's convention a caller does not read
// it, and the tests cannot see it change.
//
//	mutants -pkg ./metrics [-files 'scan*.go,sse.go'] [-n 100] [-seed 1] [-tests ./metrics,./record] [-list] [-only FILE]
//
// -n is how many viable mutants to judge: sites are drawn in the seed's
// order until that many built.
//
// It prints a line a mutant and a summary line as JSON; -list prints the
// mutants drawn, without running them.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// site is one place a mutant can be made: the file, the node's offset
// and what the change does.
type site struct {
	file   string // relative to the module
	offset int
	line   int
	col    int    // two mutants on one line are told apart
	kind   string // "op", "not", "int", "drop"
	from   string
	to     string
	// besideError: a constant returned beside a non-nil error
	besideError bool
	// text is the site's line, trimmed, and tcol its column within it:
	// how bench/mutation-equivalent.txt names a mutant while lines move
	text string
	tcol int
}

// key is how the file of equivalent mutants names s.
func (s site) key() string {
	return fmt.Sprintf("%s | %s | %d | %s %s -> %s", s.file, s.text, s.tcol, s.kind, s.from, s.to)
}

func (s site) String() string {
	return fmt.Sprintf("%s:%d:%d %s %s -> %s", s.file, s.line, s.col, s.kind, s.from, s.to)
}

var swaps = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL, token.ADD: token.SUB, token.SUB: token.ADD,
	token.MUL: token.QUO, token.QUO: token.MUL, token.LAND: token.LOR, token.LOR: token.LAND,
}

func main() {
	pkg := flag.String("pkg", "", "the package's folder, relative to the module root (./metrics)")
	files := flag.String("files", "*.go", "which of its files to mutate (globs joined by commas; tests never)")
	n := flag.Int("n", 100, "viable mutants to judge, drawn at random (0: every one)")
	seed := flag.Uint64("seed", 1, "seed of the draw")
	tests := flag.String("tests", "", "packages whose tests judge a mutant, comma-separated (default: -pkg)")
	timeout := flag.Duration("timeout", 0, "a mutant whose tests run longer is killed (a loop without end); 0: five times the unmutated tests' time, at least 20 s")
	equivalent := flag.String("equivalent", "", "a file of mutants set aside as equivalent, one \"file:line:column kind from -> to\" a line")
	list := flag.Bool("list", false, "print the mutants drawn and stop")
	only := flag.String("only", "", "a file of mutants' keys, one a line as a run prints them (its survivors): judge those alone")
	flag.Parse()
	if *pkg == "" {
		fmt.Fprintln(os.Stderr, "usage: mutants -pkg ./DIR [-files GLOB] [-n N] [-seed S] [-tests PKGS] [-equivalent FILE]")
		os.Exit(2)
	}
	root, err := os.Getwd()
	check(err)
	sites, err := collect(root, *pkg, *files)
	check(err)
	r := rand.New(rand.NewPCG(*seed, 0))
	r.Shuffle(len(sites), func(i, j int) { sites[i], sites[j] = sites[j], sites[i] })
	if *only != "" {
		sites = listed(sites, readEquivalent(*only))
	}
	if *list {
		if *n > 0 && *n < len(sites) {
			sites = sites[:*n]
		}
		for _, s := range sites {
			fmt.Println(s.key())
		}
		return
	}
	skip := readEquivalent(*equivalent)
	judge := strings.Split(*tests, ",")
	if *tests == "" {
		judge = []string{*pkg}
	}
	copyDir, err := os.MkdirTemp("", "mutants-")
	check(err)
	defer os.RemoveAll(copyDir)
	check(copyModule(root, copyDir))
	// the tests must pass as they are, or every mutant "dies"; their time
	// sets how long a mutant may take before it counts as never ending
	began := time.Now()
	if out, err := goTest(context.Background(), copyDir, judge); err != nil {
		fmt.Fprintf(os.Stderr, "mutants: the tests fail without a mutant:\n%s", out)
		os.Exit(1)
	}
	if *timeout == 0 {
		*timeout = max(20*time.Second, 5*time.Since(began))
	}
	counts := map[string]int{}
	var survivors []string
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false) // operators read as written
	for _, s := range sites {
		if *n > 0 && counts["killed"]+counts["survived"]+counts["equivalent"] >= *n {
			break
		}
		outcome := "equivalent"
		if !skip[s.key()] && !s.besideError {
			outcome = try(copyDir, s, judge, *timeout)
		}
		counts[outcome]++
		if outcome == "survived" {
			survivors = append(survivors, s.key())
		}
		_ = enc.Encode(map[string]string{"mutant": s.String(), "key": s.key(), "outcome": outcome})
	}
	score := 0.0
	if k, sv := counts["killed"], counts["survived"]; k+sv > 0 {
		score = float64(k) / float64(k+sv)
	}
	_ = enc.Encode(map[string]any{"package": *pkg, "files": *files, "tests": judge, "sites": len(sites), "killed": counts["killed"],
		"survived": counts["survived"], "not_viable": counts["not_viable"], "equivalent": counts["equivalent"], "score": score, "survivors": survivors})
}

// listed is the sites whose keys are in keys: a run's survivors judged
// again after the tests changed.
func listed(sites []site, keys map[string]bool) []site {
	var out []site
	for _, s := range sites {
		if keys[s.key()] {
			out = append(out, s)
		}
	}
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

// collect finds every mutation site in the package's files.
func collect(root, pkg, globs string) ([]site, error) {
	var paths []string
	for _, glob := range strings.Split(globs, ",") {
		matched, err := filepath.Glob(filepath.Join(root, pkg, strings.TrimSpace(glob)))
		if err != nil {
			return nil, err
		}
		paths = append(paths, matched...)
	}
	sort.Strings(paths)
	var out []site
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		rel, _ := filepath.Rel(root, path)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(src), "\n")
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		add := func(n ast.Node, kind, from, to string) {
			p := fset.Position(n.Pos())
			if b, ok := n.(*ast.BinaryExpr); ok {
				p = fset.Position(b.OpPos) // a || b || c: two operators, one start
			}
			line := lines[p.Line-1]
			indent := len(line) - len(strings.TrimLeft(line, " \t"))
			out = append(out, site{file: rel, offset: p.Offset, line: p.Line, col: p.Column, kind: kind, from: from, to: to,
				text: strings.TrimSpace(line), tcol: p.Column - indent})
		}
		besideError := constantsBesideErrors(f)
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ImportSpec, *ast.Field:
				return false // paths and struct tags: no logic
			case *ast.BinaryExpr:
				if to, ok := swaps[x.Op]; ok {
					add(x, "op", x.Op.String(), to.String())
				}
			case *ast.IfStmt:
				add(x, "not", "if", "if !")
			case *ast.UnaryExpr:
				if x.Op == token.NOT {
					add(x, "unnot", "!", "nothing")
				}
			case *ast.Ident:
				if x.Name == "true" || x.Name == "false" {
					add(x, "bool", x.Name, map[string]string{"true": "false", "false": "true"}[x.Name])
					out[len(out)-1].besideError = besideError[x]
				}
			case *ast.IncDecStmt:
				add(x, "incdec", x.Tok.String(), map[token.Token]string{token.INC: "--", token.DEC: "++"}[x.Tok])
			case *ast.ExprStmt:
				if _, ok := x.X.(*ast.CallExpr); ok {
					add(x, "dropcall", "call", "nothing")
				}
			case *ast.BasicLit:
				if to, ok := changedLiteral(x); ok {
					add(x, map[token.Token]string{token.INT: "int", token.FLOAT: "float"}[x.Kind], x.Value, to)
					out[len(out)-1].besideError = besideError[x]
				}
			case *ast.AssignStmt:
				if to, ok := assignSwaps[x.Tok]; ok {
					add(x, "assignop", x.Tok.String(), to.String())
				}
				if x.Tok != token.DEFINE && len(x.Lhs) == 1 {
					add(x, "drop", "assignment", "nothing")
				}
			}
			return true
		})
	}
	return out, nil
}

// assignSwaps are the compound assignments swapped.
var assignSwaps = map[token.Token]token.Token{
	token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
	token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN,
}

// changedLiteral is a number literal changed: an integer by one (1 to
// 0), a float doubled (0 to 1).
func changedLiteral(x *ast.BasicLit) (string, bool) {
	switch x.Kind {
	case token.INT:
		v, err := strconv.ParseInt(x.Value, 0, 64)
		if err != nil || v < 0 || v >= 1<<20 {
			return "", false
		}
		if v == 1 {
			return "0", true
		}
		return strconv.FormatInt(v+1, 10), true
	case token.FLOAT:
		v, err := strconv.ParseFloat(x.Value, 64)
		if err != nil {
			return "", false
		}
		if v == 0 {
			return "1.0", true
		}
		return strconv.FormatFloat(2*v, 'g', -1, 64), true
	}
	return "", false
}

// constantsBesideErrors finds the constants returned beside an error that
// cannot be nil: a new one (fmt.Errorf, errors.New, io.EOF) or the error
// an "if err != nil" just tested.
func constantsBesideErrors(f *ast.File) map[ast.Expr]bool {
	out := map[ast.Expr]bool{}
	mark := func(ret *ast.ReturnStmt, tested string) {
		n := len(ret.Results)
		if n < 2 || !nonNilError(ret.Results[n-1], tested) {
			return
		}
		for _, r := range ret.Results[:n-1] {
			if _, ok := r.(*ast.BasicLit); ok || isIdent(r, "true") || isIdent(r, "false") {
				out[r] = true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ReturnStmt:
			mark(x, "")
		case *ast.IfStmt:
			if c, ok := x.Cond.(*ast.BinaryExpr); ok && c.Op == token.NEQ && isIdent(c.Y, "nil") {
				if id, ok := c.X.(*ast.Ident); ok {
					for _, st := range x.Body.List {
						if ret, ok := st.(*ast.ReturnStmt); ok {
							mark(ret, id.Name)
						}
					}
				}
			}
		}
		return true
	})
	return out
}

// nonNilError: e is an error made on the spot, a sentinel of io, or the
// variable named tested.
func nonNilError(e ast.Expr, tested string) bool {
	switch x := e.(type) {
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, "fmt") && sel.Sel.Name == "Errorf" {
			return true
		}
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, "errors") && sel.Sel.Name == "New" {
			return true
		}
	case *ast.SelectorExpr:
		return isIdent(x.X, "io") && strings.HasPrefix(x.Sel.Name, "E")
	case *ast.Ident:
		return tested != "" && x.Name == tested
	}
	return false
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// try makes mutant s in the copy, runs the judging tests, and puts the
// file back: "killed", "survived" or "not_viable".
func try(dir string, s site, judge []string, timeout time.Duration) string {
	path := filepath.Join(dir, s.file)
	orig, err := os.ReadFile(path)
	check(err)
	defer func() { check(os.WriteFile(path, orig, 0o644)) }()
	mutated, ok := mutate(path, orig, s)
	if !ok {
		return "not_viable"
	}
	check(os.WriteFile(path, mutated, 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := goTest(ctx, dir, judge)
	switch {
	case err == nil:
		return "survived"
	case ctx.Err() != nil:
		return "killed" // ran without end
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		return "not_viable"
	}
	return "killed"
}

// goTest runs the judging tests in dir. Vet is off: a mutant is judged by
// the tests, not by vet's printf checks.
func goTest(ctx context.Context, dir string, judge []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-count=1", "-failfast", "-vet=off"}, judge...)...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// copyModule copies the module's Go sources and test data (not its
// caches or build outputs) to dir.
func copyModule(root, dir string) error {
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "out" || name == "node_modules") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
}

// readEquivalent reads the mutants set aside.
func readEquivalent(path string) map[string]bool {
	out := map[string]bool{}
	if path == "" {
		return out
	}
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	return out
}
