package browse

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/tools/page"
)

// cursor is a position in a paged text: a page and a rune offset in it.
type cursor struct {
	Page   int
	Offset int
}

// piece is the part of one page that a call returns.
type piece struct {
	Page      int
	Text      string
	Continued bool // starts mid-page
}

// take returns the text from at onwards, at most maxChars runes and
// maxPages pages, whole pages when it can: a page that does not fit is cut
// only when nothing was taken yet. It returns where the next call starts and
// whether any text is left there. Blank pages are passed over.
func take(pages []string, at cursor, maxChars, maxPages int) ([]piece, cursor, bool) {
	var out []piece
	budget := max(maxChars, 1)
	p, o := at.Page, max(at.Offset, 0)
	for visited := 0; p < len(pages) && visited < maxPages; visited++ {
		rest := skipRunes(pages[p], o)
		if strings.TrimSpace(rest) == "" {
			p, o = p+1, 0
			continue
		}
		n := utf8.RuneCountInString(rest)
		if n <= budget {
			out = append(out, piece{Page: p, Text: rest, Continued: o > 0})
			budget -= n
			p, o = p+1, 0
			continue
		}
		if len(out) > 0 {
			break
		}
		cut := skipRunesPrefix(rest, budget)
		// End at a line break when one is in the second half, so the
		// next page starts on a fresh line.
		if i := strings.LastIndexByte(cut, '\n'); i >= len(cut)/2 && i > 0 {
			cut = cut[:i+1]
		}
		out = append(out, piece{Page: p, Text: cut, Continued: o > 0})
		o += utf8.RuneCountInString(cut)
		break
	}
	next := cursor{Page: p, Offset: o}
	return out, next, hasText(pages, next)
}

func hasText(pages []string, at cursor) bool {
	for p := at.Page; p < len(pages); p++ {
		rest := pages[p]
		if p == at.Page {
			rest = skipRunes(rest, at.Offset)
		}
		if strings.TrimSpace(rest) != "" {
			return true
		}
	}
	return false
}

// skipRunes returns s without its first n runes.
func skipRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[i:]
		}
		n--
	}
	return ""
}

// skipRunesPrefix returns the first n runes of s.
func skipRunesPrefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// tokenMessage renders a token error for the model.
func tokenMessage(err error) string {
	var te *page.TokenError
	if errors.As(err, &te) {
		return te.Message()
	}
	return "Invalid continuation token: " + err.Error()
}
