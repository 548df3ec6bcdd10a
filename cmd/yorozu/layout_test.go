package main

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/yorozu-bot/yorozu"

// architectureDoc is where the layers are drawn; TestLayout holds the code
// to it.
const architectureDoc = "../../docs/architecture.md"

// maxWiringLines bounds cmd/yorozu's non-test Go lines: it only wires, and
// logic that grows there belongs in the package that owns it.
const maxWiringLines = 1500

// configImporters are the only packages that may import config
// (docs/architecture.md, "Rules"): the wiring, the doctor that parses the
// environment itself, and the admin page's settings, which read with
// config's own parsers. Everything else is handed plain values.
var configImporters = []string{"cmd/yorozu", "health", "web"}

// docLayers reads the layers of docs/architecture.md's layer block: one line
// a layer, highest first, "pkg, pkg — what they are".
func docLayers(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(architectureDoc)
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
			inSection = line == "## Layers"
		case inSection && line == "```" && !inBlock && len(layers) == 0:
			inBlock = true
		case inBlock && line == "```":
			inBlock, inSection = false, false
		case inBlock:
			pkgs, _, ok := strings.Cut(line, " — ")
			if !ok {
				t.Fatalf("%s: layer line %q has no \" — \"", architectureDoc, line)
			}
			for p := range strings.SplitSeq(pkgs, ", ") {
				layers[p] = n
			}
			n++
		}
	}
	if len(layers) == 0 {
		t.Fatalf("%s has no layer block under \"## Layers\"", architectureDoc)
	}
	return layers
}

// testHelper matches the packages only tests may import.
var testHelper = regexp.MustCompile(`(^|/)[a-z]+test$`)

// modulePackage is what TestLayout learns of one package from its non-test
// files.
type modulePackage struct {
	names   map[string]bool // package clauses (more than one is a mistake too)
	imports map[string]bool // packages of this module it imports
	lines   int
}

// readModule parses the package clause and imports of every non-test Go
// file under root, by package path relative to root.
func readModule(t *testing.T, root string) map[string]*modulePackage {
	t.Helper()
	pkgs := map[string]*modulePackage{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "data") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		p := pkgs[pkg]
		if p == nil {
			p = &modulePackage{names: map[string]bool{}, imports: map[string]bool{}}
			pkgs[pkg] = p
		}
		p.names[f.Name.Name] = true
		p.lines += bytes.Count(src, []byte("\n"))
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if inner, ok := strings.CutPrefix(path, modulePath+"/"); ok {
				p.imports[inner] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found only %d packages under %s", len(pkgs), root)
	}
	return pkgs
}

// TestLayout holds the code to docs/architecture.md: every package is in
// its layers and imports only packages of the layers below its own; no
// package imports a test helper outside its tests; only the packages the
// page names import config, and none imports cmd; no two packages share a
// name; cmd/yorozu stays small enough to be only wiring.
func TestLayout(t *testing.T) {
	layers := docLayers(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := readModule(t, root)
	byName := map[string][]string{}
	for pkg, p := range pkgs {
		for name := range p.names {
			if name != "main" {
				byName[name] = append(byName[name], pkg)
			}
		}
		if len(p.names) > 1 {
			t.Errorf("package %s has files of several packages: %v", pkg, p.names)
		}
		for dep := range p.imports {
			switch {
			case strings.HasPrefix(dep, "cmd/"):
				t.Errorf("%s imports %s: nothing imports a command", pkg, dep)
			case dep == "config" && !slices.Contains(configImporters, pkg):
				t.Errorf("%s imports config: only %v do; hand it the values it needs", pkg, configImporters)
			}
		}
		if testHelper.MatchString(pkg) {
			continue
		}
		layer, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s is not in %s's layers", pkg, architectureDoc)
			continue
		}
		for dep := range p.imports {
			depLayer, known := layers[dep]
			switch {
			case testHelper.MatchString(dep):
				t.Errorf("%s imports the test helper %s outside its tests", pkg, dep)
			case !known:
				t.Errorf("%s imports %s, which is not in %s's layers", pkg, dep, architectureDoc)
			case depLayer <= layer:
				t.Errorf("%s imports %s: a package of its own layer or one above it", pkg, dep)
			}
		}
	}
	for name, dirs := range byName {
		if len(dirs) > 1 {
			slices.Sort(dirs)
			t.Errorf("%d packages are named %s (%s): give each a name of its own", len(dirs), name, strings.Join(dirs, ", "))
		}
	}
	for pkg := range layers {
		if pkgs[pkg] == nil {
			t.Errorf("%s's layers name %s, which has no Go files", architectureDoc, pkg)
		}
	}
	if n := pkgs["cmd/yorozu"].lines; n >= maxWiringLines {
		t.Errorf("cmd/yorozu has %d non-test lines, at most %d allowed: it only wires; move logic into the package that owns it", n, maxWiringLines-1)
	}
}
