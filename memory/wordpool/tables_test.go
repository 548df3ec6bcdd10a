package wordpool

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ikawaha/kagome-dict/dict"
	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/ikawaha/kagome/v2/tokenizer"
)

// tokenTexts are texts whose words and parts of speech a dictionary must
// give exactly as kagome's own does.
var tokenTexts = []string{
	message200,
	"ポケモンカードを集めてるんだけど、保管方法は？",
	"すもももももももものうち。東京特許許可局で、ｶﾀｶﾅとEnglish words 123 が混ざる😀",
	strings.Repeat("吾輩は猫である。名前はまだ無い。", 3),
	"明日の9時に会議をリマインドして",
	"今日の天気は？梅雨の雨はいつまで",
}

var kagomeOwn = sync.OnceValue(func() *tokenizer.Tokenizer {
	// ipa.Dict is a load of its own (the full dictionary, with features),
	// left on the heap as kagome loads it.
	t, err := tokenizer.New(ipa.Dict(), tokenizer.OmitBosEos())
	if err != nil {
		panic(err)
	}
	return t
})

// sameTokens fails t unless d splits tokenTexts and names their parts of
// speech as kagome's own dictionary does.
func sameTokens(t *testing.T, d *dict.Dict) {
	t.Helper()
	got, err := tokenizer.New(d, tokenizer.OmitBosEos())
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range tokenTexts {
		g, w := got.Tokenize(text), kagomeOwn().Tokenize(text)
		if len(g) != len(w) {
			t.Fatalf("%q: %d tokens, kagome's own dictionary %d", text, len(g), len(w))
		}
		for i := range g {
			if g[i].Surface != w[i].Surface || !slices.Equal(g[i].POS(), w[i].POS()) {
				t.Errorf("%q token %d: %s %v, kagome's own dictionary %s %v", text, i, g[i].Surface, g[i].POS(), w[i].Surface, w[i].POS())
			}
		}
	}
}

// TestMappedTablesTokeniseAsLoaded: the dictionary mapped from the tables
// file — built at the first load, used as it is at the next — reads text
// exactly as kagome's own.
func TestMappedTablesTokeniseAsLoaded(t *testing.T) {
	dir := t.TempDir()
	d, err := loadDict(dir)
	if err != nil {
		t.Fatalf("first load: %v", err)
	}
	sameTokens(t, d)
	path := filepath.Join(dir, tablesName)
	built, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}

	d, err = loadDict(dir)
	if err != nil {
		t.Fatalf("second load: %v", err)
	}
	sameTokens(t, d)
	again, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(built, again) || !again.ModTime().Equal(built.ModTime()) {
		t.Error("the second load built the tables file again")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 1 {
		t.Errorf("DATA_DIR holds %v, want the tables file alone", left)
	}
}

// TestBrokenTablesFileIsBuiltAgain: a tables file that is damaged, cut
// short, of another format or from another dictionary is never used; it is
// built again and the dictionary reads text as it should.
func TestBrokenTablesFileIsBuiltAgain(t *testing.T) {
	header := func(f func(h *tablesHeader)) func([]byte) []byte {
		return func(b []byte) []byte {
			var h tablesHeader
			if _, err := binary.Decode(b, binary.LittleEndian, &h); err != nil {
				panic(err)
			}
			f(&h)
			if _, err := binary.Encode(b, binary.LittleEndian, h); err != nil {
				panic(err)
			}
			return b
		}
	}
	cases := []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"cut in its header", func(b []byte) []byte { return b[:headerSize/2] }},
		{"cut in its tables", func(b []byte) []byte { return b[:len(b)/2] }},
		{"a byte of a table changed", func(b []byte) []byte { b[len(b)/3] ^= 0x40; return b }},
		{"bytes added", func(b []byte) []byte { return append(b, 0, 0, 0, 0) }},
		{"not a tables file", func(b []byte) []byte { return []byte(strings.Repeat("PK not a dictionary ", 100)) }},
		{"another format", header(func(h *tablesHeader) { h.Format++ })},
		{"from another dictionary", header(func(h *tablesHeader) { h.Source++ })},
		{"a section beyond the end", header(func(h *tablesHeader) { h.Sections[secDA].Len = 1 << 40 })},
	}
	good := t.TempDir()
	if _, err := loadDict(good); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(good, tablesName))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tablesName)
			if err := os.WriteFile(path, tc.damage(slices.Clone(want)), 0o600); err != nil {
				t.Fatal(err)
			}
			d, err := loadDict(dir)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			sameTokens(t, d)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Error("the tables file was not built again")
			}
		})
	}
}

// TestTablesFileCannotBeMade: where DATA_DIR cannot hold the tables file,
// the dictionary is loaded into memory, reads text the same, and the error
// says why.
func TestTablesFileCannotBeMade(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("a file, not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := loadDict(notDir)
	if err == nil || !strings.Contains(err.Error(), "kept in memory") {
		t.Errorf("load into %s: error %v, want one saying the tables are kept in memory", notDir, err)
	}
	sameTokens(t, d)
}

// TestBuildRemovesWhatStoppedBuildsLeft: a build removes the temporary
// files builds that never finished left in DATA_DIR, not one another
// process's build may still be writing.
func TestBuildRemovesWhatStoppedBuildsLeft(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, tablesName+".123456")
	recent := filepath.Join(dir, tablesName+".654321")
	mine := filepath.Join(dir, "notes.txt")
	for _, p := range []string{old, recent, mine} {
		if err := os.WriteFile(p, []byte("half a file"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-time.Hour)
	for _, p := range []string{old, mine} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	d, err := loadDict(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameTokens(t, d)
	for _, c := range []struct {
		path string
		kept bool
	}{{old, false}, {recent, true}, {mine, true}} {
		if _, err := os.Stat(c.path); (err == nil) != c.kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(c.path), err == nil, c.kept)
		}
	}
}
