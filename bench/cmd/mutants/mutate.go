package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
)

// mutate rewrites the file's source with the change at s.
func mutate(path string, src []byte, s site) ([]byte, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false
	}
	done := false
	at := func(n ast.Node) bool { return n != nil && fset.Position(n.Pos()).Offset == s.offset }
	rewrite := func(list []ast.Stmt) []ast.Stmt {
		for i, st := range list {
			_, assign := st.(*ast.AssignStmt)
			_, call := st.(*ast.ExprStmt)
			if (assign && s.kind == "drop" || call && s.kind == "dropcall") && at(st) {
				list[i] = &ast.EmptyStmt{Semicolon: st.Pos(), Implicit: true}
				done = true
			}
		}
		return list
	}
	// unnot drops a negation where its parent holds it
	unnot := func(e *ast.Expr) {
		if u, ok := (*e).(*ast.UnaryExpr); ok && u.Op == token.NOT && s.kind == "unnot" && at(u) {
			*e, done = u.X, true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if done {
			return false
		}
		switch x := n.(type) {
		case *ast.BlockStmt:
			x.List = rewrite(x.List)
		case *ast.CaseClause:
			x.Body = rewrite(x.Body)
		case *ast.BinaryExpr:
			if s.kind == "op" && fset.Position(x.OpPos).Offset == s.offset && x.Op.String() == s.from {
				x.Op, done = swaps[x.Op], true
			}
		case *ast.IfStmt:
			if s.kind == "not" && at(x) {
				x.Cond, done = &ast.UnaryExpr{Op: token.NOT, X: &ast.ParenExpr{X: x.Cond}}, true
			}
		case *ast.BasicLit:
			if (s.kind == "int" || s.kind == "float") && at(x) && x.Value == s.from {
				x.Value, done = s.to, true
			}
		case *ast.Ident:
			if s.kind == "bool" && at(x) && x.Name == s.from {
				x.Name, done = s.to, true
			}
		case *ast.IncDecStmt:
			if s.kind == "incdec" && at(x) {
				x.Tok, done = map[token.Token]token.Token{token.INC: token.DEC, token.DEC: token.INC}[x.Tok], true
			}
		case *ast.AssignStmt:
			if s.kind == "assignop" && at(x) && x.Tok.String() == s.from {
				x.Tok, done = assignSwaps[x.Tok], true
			}
			for i := range x.Rhs {
				unnot(&x.Rhs[i])
			}
		}
		if s.kind == "unnot" {
			unnotIn(n, unnot)
		}
		return true
	})
	if !done {
		return nil, false
	}
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, fset, f); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// unnotIn offers unnot every expression n holds directly.
func unnotIn(n ast.Node, unnot func(*ast.Expr)) {
	switch x := n.(type) {
	case *ast.IfStmt:
		unnot(&x.Cond)
	case *ast.ForStmt:
		if x.Cond != nil {
			unnot(&x.Cond)
		}
	case *ast.BinaryExpr:
		unnot(&x.X)
		unnot(&x.Y)
	case *ast.ReturnStmt:
		for i := range x.Results {
			unnot(&x.Results[i])
		}
	case *ast.CallExpr:
		for i := range x.Args {
			unnot(&x.Args[i])
		}
	case *ast.ParenExpr:
		unnot(&x.X)
	case *ast.CaseClause:
		for i := range x.List {
			unnot(&x.List[i])
		}
	case *ast.ValueSpec:
		for i := range x.Values {
			unnot(&x.Values[i])
		}
	case *ast.KeyValueExpr:
		unnot(&x.Value)
	case *ast.CompositeLit:
		for i := range x.Elts {
			unnot(&x.Elts[i])
		}
	}
}
