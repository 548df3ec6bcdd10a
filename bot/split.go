package bot

import (
	"strings"
	"unicode/utf8"
)

// maxMessageRunes is Discord's limit on a message's content.
const maxMessageRunes = 2000

// fence is the Markdown code fence Discord renders.
const fence = "```"

// part is one Discord message of a split text. Body is a slice of the
// original text; Reopen and Close are fences added so the part renders on
// its own (Reopen continues a code block cut by the previous part, Close
// ends one this part cuts).
type part struct {
	Reopen, Body, Close string
}

func (p part) String() string { return p.Reopen + p.Body + p.Close }

// splitMessage cuts text into messages of at most limit runes each,
// preferring paragraph, then sentence, then line, then character boundaries,
// with ``` fences closed at the end of a part and reopened (with the same
// language tag) at the start of the next.
func splitMessage(text string, limit int) []string {
	parts := splitParts(text, limit)
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.String()
	}
	return out
}

// splitParts is splitMessage keeping the added fences apart from the text,
// so that the bodies concatenate to the original.
func splitParts(text string, limit int) []part {
	var parts []part
	reopen := ""
	for {
		last := part{Reopen: reopen, Body: text}
		if open, _ := fenceState(reopen + text); open {
			// The text itself leaves a block open (a cut-off answer): close it.
			last.Close = closingFence(text)
		}
		if utf8.RuneCountInString(last.String()) <= limit {
			return append(parts, last)
		}
		avail := limit - utf8.RuneCountInString(reopen)
		body := text[:cutPoint(text[:runeOffset(text, avail)])]
		if open, _ := fenceState(reopen + body); open {
			// Cut again leaving room for the closing fence ("\n```").
			budget := max(avail-len("\n"+fence), 1)
			body = text[:cutPoint(text[:runeOffset(text, budget)])]
		}
		text = text[len(body):]

		p := part{Reopen: reopen, Body: body}
		reopen = ""
		if open, lang := fenceState(p.Reopen + body); open {
			p.Close = closingFence(body)
			reopen = fence + lang + "\n"
		}
		parts = append(parts, p)
	}
}

// closingFence is what ends a code block after body.
func closingFence(body string) string {
	if body == "" || strings.HasSuffix(body, "\n") {
		return fence
	}
	return "\n" + fence
}

// fenceState scans s for ``` markers, each of which opens or closes a code
// block (as Discord renders them), and reports whether a block is open at the
// end and the language tag it was opened with.
func fenceState(s string) (open bool, lang string) {
	for {
		i := strings.Index(s, fence)
		if i < 0 {
			return open, lang
		}
		s = s[i+len(fence):]
		open = !open
		lang = ""
		if open {
			// A tag is a single word directly after the fence, ending the line.
			line, _, hasNL := strings.Cut(s, "\n")
			if hasNL && isLangTag(line) {
				lang = line
				if utf8.RuneCountInString(lang) > 32 {
					lang = ""
				}
			}
		}
	}
}

func isLangTag(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("+#-_.", r):
		default:
			return false
		}
	}
	return true
}

// cutPoint returns the byte offset in window at which to end a part: after
// the last paragraph break, else sentence end, else line break, else space
// in the second half of the window, else the whole window (a hard cut
// between runes).
func cutPoint(window string) int {
	half := len(window) / 2
	if i := strings.LastIndex(window, "\n\n"); i >= half {
		return i + 2
	}
	if i := lastSentenceEnd(window); i >= half {
		return i
	}
	if i := strings.LastIndex(window, "\n"); i >= half {
		return i + 1
	}
	if i := strings.LastIndexAny(window, " \t\u3000"); i >= half {
		_, size := utf8.DecodeRuneInString(window[i:])
		return i + size
	}
	if len(window) == 0 {
		return 0
	}
	return len(window)
}

// closers may follow a sentence end and stay with it.
const closers = "」』）)\"'”’】"

// lastSentenceEnd returns the offset just after the last sentence end in s
// (。！？ anywhere, . ! ? before a space), including closing brackets and
// whitespace after it; -1 if there is none.
func lastSentenceEnd(s string) int {
	best := -1
	for i, r := range s {
		end := -1
		switch r {
		case '。', '！', '？':
			end = i + utf8.RuneLen(r)
		case '.', '!', '?':
			next := i + 1
			if next < len(s) && (s[next] == ' ' || s[next] == '\n') {
				end = next
			}
		}
		if end < 0 {
			continue
		}
		for end < len(s) {
			r, size := utf8.DecodeRuneInString(s[end:])
			if !strings.ContainsRune(closers, r) && r != ' ' && r != '\u3000' {
				break
			}
			end += size
		}
		best = end
	}
	return best
}

// runeOffset returns the byte offset of the n-th rune of s (len(s) if s is shorter).
func runeOffset(s string, n int) int {
	if n <= 0 {
		return 0
	}
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
