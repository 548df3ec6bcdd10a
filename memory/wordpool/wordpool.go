package wordpool

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ikawaha/kagome-dict/dict"
	"github.com/ikawaha/kagome/v2/tokenizer"

	"github.com/yorozu-bot/yorozu/db"
)

// DefaultSize is how many nouns a pool keeps.
const DefaultSize = 200

var (
	tokOnce sync.Once
	tok     *tokenizer.Tokenizer
	tokDir  string // the dir the dictionary was loaded with
	tokErr  error  // why its tables are not mapped from tokDir, if they are not
)

// tokenizerOnce returns the tokenizer, loading the dictionary on first use
// (with dir, or in memory when Load has not been called); every pool
// shares it. Tokenizer is safe for concurrent use.
func tokenizerOnce(dir string) *tokenizer.Tokenizer {
	tokOnce.Do(func() {
		var d *dict.Dict
		d, tokErr = loadDict(dir)
		tokDir = dir
		// New fails only without a dictionary.
		tok, _ = tokenizer.New(d, tokenizer.OmitBosEos())
	})
	return tok
}

// Load loads the dictionary now, so that the first message routed or
// tagged does not wait for it. dir is where its tables are kept, mapped
// (DATA_DIR): the file is built there at the first start (about a second)
// and mapped at the next ones (milliseconds), and only the parts of it the
// tokenizer reads count in the process's memory. When that cannot be done
// the dictionary is loaded into memory instead (about 27 MB more, the same
// results), and Load says why. It is safe to call more than once and beside
// the first use; the first call's dir is the one used, and a use before
// the first call loads the dictionary into memory.
func Load(dir string) error {
	tokenizerOnce(dir)
	if tokErr != nil {
		return tokErr
	}
	if tokDir == "" && dir != "" {
		return errors.New("dictionary used before it was loaded: its tables are kept in memory")
	}
	return nil
}

// skipped noun subclasses: they are grammar, numbers or qualities (好き,
// 暇), not topics.
var skipped = map[string]bool{"非自立": true, "代名詞": true, "数": true, "接尾": true, "特殊": true, "副詞可能": true, "形容動詞語幹": true}

// Nouns returns the nouns of text in order, once each: 名詞 other than
// pronouns, numbers, suffixes, dependent and adverbial nouns (昨日, 今) and
// adjectival stems (好き, 暇), with a letter in them, and of two characters
// or more unless a kanji (傘, 猫).
func Nouns(text string) []string {
	t := tokenizerOnce("")
	var out []string
	for _, tk := range t.Tokenize(text) {
		pos := tk.POS()
		if len(pos) == 0 || pos[0] != "名詞" || (len(pos) > 1 && skipped[pos[1]]) {
			continue
		}
		w := strings.TrimSpace(tk.Surface)
		if !hasLetter(w) || slices.Contains(out, w) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(w); utf8.RuneCountInString(w) < 2 && !unicode.Is(unicode.Han, r) {
			continue
		}
		out = append(out, w)
	}
	return out
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// Pool holds the latest nouns, oldest first, each once. It is safe for
// concurrent use. Texts given to Seed are tokenised on the pool's first use,
// so a pool seeded at start does not load the dictionary before it is needed.
type Pool struct {
	size int

	mu      sync.Mutex
	words   []string
	pending []string // seeded texts not yet tokenised, oldest first
}

// New returns an empty pool keeping size nouns (DefaultSize when ≤ 0).
func New(size int) *Pool {
	if size <= 0 {
		size = DefaultSize
	}
	return &Pool{size: size, words: make([]string, 0, size)}
}

// AddNouns adds nouns (as Nouns returns them) as the newest; a noun already
// kept moves to the newest place, and the oldest fall out beyond the size.
func (p *Pool) AddNouns(nouns []string) {
	if len(nouns) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	p.addLocked(nouns)
}

func (p *Pool) addLocked(nouns []string) {
	for _, n := range nouns {
		if i := slices.Index(p.words, n); i >= 0 {
			p.words = slices.Delete(p.words, i, i+1)
		}
		p.words = append(p.words, n)
	}
	if over := len(p.words) - p.size; over > 0 {
		p.words = slices.Delete(p.words, 0, over)
	}
}

// flushLocked tokenises the seeded texts, the oldest first, before anything
// newer is added or read.
func (p *Pool) flushLocked() {
	if len(p.pending) == 0 {
		return
	}
	pending := p.pending
	p.pending = nil
	var nouns []string
	for _, t := range pending {
		nouns = append(nouns, Nouns(t)...)
	}
	p.addOlderLocked(nouns)
}

// addOlderLocked adds nouns, oldest first, as older than every kept one.
func (p *Pool) addOlderLocked(nouns []string) {
	newer := p.words
	p.words = make([]string, 0, p.size)
	p.addLocked(nouns)
	p.addLocked(newer)
}

// Seed adds texts as older than anything added so far, oldest first, e.g.
// the stored messages at start. They are tokenised on the pool's first use.
func (p *Pool) Seed(texts []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append(p.pending, texts...)
	if over := len(p.pending) - p.size; over > 0 {
		// Bounded: the newest texts are the ones that count.
		p.pending = slices.Delete(p.pending, 0, over)
	}
}

// SeedWords adds nouns (oldest first, as Words returns them) as older than
// anything added so far: a saved pool (db.SavedWordPool).
func (p *Pool) SeedWords(words []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	p.addOlderLocked(words)
}

// SeedFromDB seeds the pool from the last n stored user messages of space
// (n ≤ 0 means the pool's size).
func (p *Pool) SeedFromDB(ctx context.Context, q db.Querier, space string, n int) error {
	if n <= 0 {
		n = p.size
	}
	texts, err := db.RecentUserTexts(ctx, q, space, n)
	if err != nil {
		return err
	}
	p.Seed(texts)
	return nil
}

// Words returns the kept nouns, oldest first.
func (p *Pool) Words() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	return slices.Clone(p.words)
}

// Pick returns a random kept noun; false when the pool is empty. r may be
// nil for the global source.
func (p *Pool) Pick(r *rand.Rand) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	if len(p.words) == 0 {
		return "", false
	}
	return p.words[intN(r, len(p.words))], true
}

// Related returns a topic for text: one of its nouns the pool already knows
// (people talk about it), else one of its own nouns, else Pick.
func (p *Pool) Related(text string, r *rand.Rand) (string, bool) {
	nouns := Nouns(text)
	p.mu.Lock()
	p.flushLocked()
	var known []string
	for _, n := range nouns {
		if slices.Contains(p.words, n) {
			known = append(known, n)
		}
	}
	p.mu.Unlock()
	switch {
	case len(known) > 0:
		return known[intN(r, len(known))], true
	case len(nouns) > 0:
		return nouns[intN(r, len(nouns))], true
	}
	return p.Pick(r)
}

// Knows reports whether word is among the kept nouns: people used it
// lately.
func (p *Pool) Knows(word string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	return slices.Contains(p.words, word)
}

func intN(r *rand.Rand, n int) int {
	if r == nil {
		return rand.IntN(n)
	}
	return r.IntN(n)
}

// Word is one word of a text as the dictionary reads it.
type Word struct {
	// Surface is the word as written. The shrunk dictionary keeps no base
	// forms, so a verb is its conjugated stem (教え in 教えて).
	Surface string
	// POS is its part of speech, most general first: 名詞, 固有名詞, 地域.
	POS []string
}

// Words returns the words of text in order, spaces left out, read with the
// dictionary every pool shares (loaded on first use, as Nouns does).
func Words(text string) []Word {
	t := tokenizerOnce("")
	tks := t.Tokenize(text)
	out := make([]Word, 0, len(tks))
	for _, tk := range tks {
		pos := tk.POS()
		if len(pos) > 1 && pos[1] == "空白" || strings.TrimSpace(tk.Surface) == "" {
			continue
		}
		out = append(out, Word{Surface: tk.Surface, POS: pos})
	}
	return out
}
