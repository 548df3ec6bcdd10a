package memory

import (
	"testing"
	"unicode/utf8"
)

// TestIsWideTable: the table gives what the Unicode tables give, for every
// rune.
func TestIsWideTable(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if isWide(r) != isWideSlow(r) {
			t.Fatalf("isWide(%U) = %v, the Unicode tables say %v", r, isWide(r), isWideSlow(r))
		}
	}
}
