package llm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of tool results sent back to the model, in characters (runes).
// Stage 1, a tool's own limit, is applied by the tool itself.
const (
	// MaxResultChars caps each tool result (stage 2).
	MaxResultChars = 6000
	// MaxTurnChars caps all tool results of one turn together, across its
	// rounds (stage 3).
	MaxTurnChars = 24000
	// TruncationMarker ends a result that was cut, before any page-info footer.
	TruncationMarker = "…[tool result truncated]"
	// PageInfoLine starts the footer of a paged result; the footer is never cut.
	PageInfoLine = "---page-info---"
)

// TrimResults applies stages 2 and 3 to the results of one tool round:
// each result is cut to MaxResultChars, then, when they still exceed budget
// together (what the turn's results may still use of MaxTurnChars), each is
// cut further in proportion to its length so the total fits. Results too
// short to be worth cutting (at most twice the marker) are left whole, so a
// short "Error: …" stays readable, and a ---page-info--- footer is never
// cut, so a round past the budget still tells the model how to go on. The
// returned slice is new; results is not modified.
func TrimResults(results []string, budget int) []string {
	out := make([]string, len(results))
	lens := make([]int, len(results))
	total := 0
	for i, r := range results {
		out[i] = TrimResult(r, MaxResultChars)
		lens[i] = utf8.RuneCountInString(out[i])
		total += lens[i]
	}
	if total <= budget {
		return out
	}
	small := 2 * utf8.RuneCountInString(TruncationMarker)
	cuttable := 0
	for _, n := range lens {
		if n <= small {
			budget -= n
		} else {
			cuttable += n
		}
	}
	budget = max(budget, 0)
	for i, n := range lens {
		if n > small {
			out[i] = TrimResult(out[i], n*budget/cuttable)
		}
	}
	return out
}

// TrimResult cuts s to at most limit runes, marker included. A trailing
// ---page-info--- footer is kept whole and re-appended after the marker, so
// a result may exceed limit only when the footer and marker alone do. The
// cut prefers a paragraph boundary, then a word boundary (whitespace or 。、),
// then falls back to a hard rune cut.
func TrimResult(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	body, footer := splitFooter(s)
	budget := limit - utf8.RuneCountInString(footer) - utf8.RuneCountInString(TruncationMarker)
	return cutBody(body, budget) + TruncationMarker + footer
}

// splitFooter separates the final block that starts with a line
// "---page-info---" (with the newline before it) from the body.
func splitFooter(s string) (body, footer string) {
	for end := len(s); end >= 0; {
		i := strings.LastIndex(s[:end], PageInfoLine)
		if i < 0 {
			return s, ""
		}
		lineStart := i == 0 || s[i-1] == '\n'
		after := s[i+len(PageInfoLine):]
		lineEnd := after == "" || after[0] == '\n' || strings.HasPrefix(after, "\r\n")
		if lineStart && lineEnd {
			if i > 0 {
				i-- // the footer owns the newline that separates it
			}
			return s[:i], s[i:]
		}
		end = i
	}
	return s, ""
}

// cutBody returns a prefix of body of at most budget runes, ending at the
// best boundary that keeps at least half of the hard cut (in bytes).
func cutBody(body string, budget int) string {
	if budget <= 0 {
		return ""
	}
	if utf8.RuneCountInString(body) <= budget {
		return body
	}
	// Byte offset of the rune at index budget: the hard cut.
	hard := 0
	for i := range body {
		if budget == 0 {
			hard = i
			break
		}
		budget--
	}
	prefix := body[:hard]
	half := len(prefix) / 2
	if i := strings.LastIndex(prefix, "\n\n"); i >= half && i > 0 {
		return strings.TrimRightFunc(prefix[:i], unicode.IsSpace)
	}
	if i := lastWordBoundary(prefix); i >= half && i > 0 {
		return strings.TrimRightFunc(prefix[:i], unicode.IsSpace)
	}
	return prefix
}

// lastWordBoundary is the byte offset where prefix may be cut between
// words: before the last whitespace, or after the last 。 or 、. -1 if none.
func lastWordBoundary(prefix string) int {
	for i := len(prefix); i > 0; {
		r, size := utf8.DecodeLastRuneInString(prefix[:i])
		switch {
		case r == '。' || r == '、':
			return i
		case unicode.IsSpace(r):
			return i - size
		}
		i -= size
	}
	return -1
}
