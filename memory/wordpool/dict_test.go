package wordpool

import (
	"slices"
	"strings"
	"testing"

	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/ikawaha/kagome/v2/tokenizer"
)

// TestMovedDictionaryTokenisesAsLoaded: with its tables moved off the heap
// and its part-of-speech vectors shared, the dictionary splits text and
// names parts of speech exactly as a dictionary kagome loads itself.
func TestMovedDictionaryTokenisesAsLoaded(t *testing.T) {
	moved, err := tokenizerOnce()
	if err != nil {
		t.Fatal(err)
	}
	// ipa.Dict is a separate load (the full dictionary, with features)
	// now that the shrunk one is loaded: same tables, left on the heap.
	loaded, err := tokenizer.New(ipa.Dict(), tokenizer.OmitBosEos())
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		message200,
		"ポケモンカードを集めてるんだけど、保管方法は？",
		"すもももももももものうち。東京特許許可局で、ｶﾀｶﾅとEnglish words 123 が混ざる😀",
		strings.Repeat("吾輩は猫である。名前はまだ無い。", 3),
	}
	for _, text := range texts {
		got, want := moved.Tokenize(text), loaded.Tokenize(text)
		if len(got) != len(want) {
			t.Fatalf("%q: %d tokens, kagome's own dictionary %d", text, len(got), len(want))
		}
		for i := range got {
			if got[i].Surface != want[i].Surface || !slices.Equal(got[i].POS(), want[i].POS()) {
				t.Errorf("%q token %d: %s %v, kagome's own dictionary %s %v", text, i, got[i].Surface, got[i].POS(), want[i].Surface, want[i].POS())
			}
		}
	}
}
