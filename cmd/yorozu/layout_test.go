package main

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/yorozu-bot/yorozu"

// readmeLayers reads the layers of the layout block in docs/development.md:
// one line a layer, highest first, "pkg, pkg — what they are".
func readmeLayers(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open("../../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers := map[string]int{}
	sc := bufio.NewScanner(f)
	inSection, inBlock, n := false, false, 0
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			inSection = line == "## Layout"
		case inSection && line == "```" && !inBlock && len(layers) == 0:
			inBlock = true
		case inBlock && line == "```":
			inBlock, inSection = false, false
		case inBlock:
			pkgs, _, ok := strings.Cut(line, " — ")
			if !ok {
				t.Fatalf("docs/development.md layout line %q has no \" — \"", line)
			}
			for p := range strings.SplitSeq(pkgs, ", ") {
				layers[p] = n
			}
			n++
		}
	}
	if len(layers) == 0 {
		t.Fatal("docs/development.md's Layout section has no layout block")
	}
	return layers
}

// testHelper matches the packages only tests may import.
var testHelper = regexp.MustCompile(`(^|/)[a-z]+test$`)

// TestLayout: every package is in the layout of docs/development.md and imports only
// packages of the layers below its own; no package imports a test helper
// outside its tests.
func TestLayout(t *testing.T) {
	layers := readmeLayers(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]map[string]bool{} // package → internal packages its non-test files import
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "data") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if inner, ok := strings.CutPrefix(p, modulePath+"/"); ok {
				imports[pkg][inner] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 20 {
		t.Fatalf("found only %d packages under %s", len(imports), root)
	}
	for pkg, deps := range imports {
		if testHelper.MatchString(pkg) {
			continue
		}
		layer, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s is not in the layout of docs/development.md", pkg)
			continue
		}
		for dep := range deps {
			depLayer, known := layers[dep]
			switch {
			case testHelper.MatchString(dep):
				t.Errorf("%s imports the test helper %s outside its tests", pkg, dep)
			case !known:
				t.Errorf("%s imports %s, which is not in the layout of docs/development.md", pkg, dep)
			case depLayer <= layer:
				t.Errorf("%s imports %s: a package of its own layer or one above it", pkg, dep)
			}
		}
	}
	for pkg := range layers {
		if imports[pkg] == nil {
			t.Errorf("the layout of docs/development.md names %s, which has no Go files", pkg)
		}
	}
}
