package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// avoidedWords are words yorozu does not use (docs/ja/glossary.md says
// which it uses instead): 空間 reads as physical space (スペース), 人格 as a
// person's character (ペルソナ).
var avoidedWords = []string{"空間", "人格"}

// glossary names the avoided words on purpose.
const glossary = "docs/ja/glossary.md"

// TestVocabulary: no Go or JS source (tests aside), template, stylesheet or
// document uses a word the glossary avoids.
func TestVocabulary(t *testing.T) {
	root := "../.."
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "vendor" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case rel == glossary, strings.HasSuffix(rel, "_test.go"):
			return nil
		case strings.HasSuffix(rel, ".go"), strings.HasSuffix(rel, ".js"), strings.HasSuffix(rel, ".html"),
			strings.HasSuffix(rel, ".css"), strings.HasSuffix(rel, ".md"):
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			for _, w := range avoidedWords {
				if strings.Contains(line, w) {
					t.Errorf("%s:%d uses 「%s」 (see %s): %s", rel, i+1, w, glossary, strings.TrimSpace(line))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files", checked)
	}
	g, err := os.ReadFile(filepath.Join(root, glossary))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range avoidedWords {
		if !strings.Contains(string(g), w) {
			t.Errorf("%s does not say that 「%s」 is not used", glossary, w)
		}
	}
}

// TestReadmeTestCommand: the README (both languages) gives the test command
// CI runs, word for word, so a newcomer runs what CI runs.
func TestReadmeTestCommand(t *testing.T) {
	f, err := os.Open("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var command string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() == "# The README's test command:" && sc.Scan() {
			command = sc.Text()
		}
	}
	if command == "" {
		t.Fatal(".ci/run has no line after \"# The README's test command:\"")
	}
	for _, readme := range []string{"README.md", "README.en.md"} {
		b, err := os.ReadFile(filepath.Join("../..", readme))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "```sh\n"+command+"\n```") {
			t.Errorf("%s does not give .ci/run's test command %q in a sh block", readme, command)
		}
	}
}
