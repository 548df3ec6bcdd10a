package wordpool

import "testing"

// TestMovedDictionaryTokenisesAsLoaded: with its tables moved off the heap
// and its part-of-speech vectors shared, the dictionary loaded into memory
// splits text and names parts of speech exactly as a dictionary kagome
// loads itself. (The shrunk dictionary is loaded before kagome's own, full
// one: once the full one is loaded, ipa.DictShrink returns it.)
func TestMovedDictionaryTokenisesAsLoaded(t *testing.T) {
	sameTokens(t, loadDictInMemory())
}
