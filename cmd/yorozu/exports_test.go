package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNoExportForTestsOnly: every exported function of a package the
// product is made of is called by the product, not only by tests. One
// that only tests call is dead code that tests keep alive, and a test that
// builds its state through it checks a path the product never takes;
// test helper packages (…test) are for tests and exempt.
func TestNoExportForTestsOnly(t *testing.T) {
	fset := token.NewFileSet()
	type fn struct{ pkg, name string }
	defined := map[fn]string{}
	called := map[fn]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir, err := filepath.Rel("../..", filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(dir)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		imports := map[string]string{} // local name → package in this module
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			rel, ok := strings.CutPrefix(p, modulePath+"/")
			if !ok {
				continue
			}
			name := filepath.Base(rel)
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = rel
		}
		declared := map[*ast.Ident]bool{}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			declared[fd.Name] = true
			if fd.Recv == nil && fd.Name.IsExported() && !testHelper.MatchString(pkg) {
				defined[fn{pkg, fd.Name.Name}] = fset.Position(fd.Pos()).String()
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && imports[id.Name] != "" {
					called[fn{imports[id.Name], x.Sel.Name}] = true
				}
			case *ast.Ident:
				if !declared[x] {
					called[fn{pkg, x.Name}] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var unused []string
	for f, at := range defined {
		name := f.pkg + "." + f.name
		if f.pkg != "" && !called[f] {
			unused = append(unused, name+" ("+at+")")
		}
	}
	slices.Sort(unused)
	for _, u := range unused {
		t.Errorf("%s is called by tests only, or not at all: build the tests' state through the product's own path and remove it (or unexport it)", u)
	}
}
