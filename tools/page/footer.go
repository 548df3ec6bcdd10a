package page

import "strings"

// Marker opens the footer of a partial result.
const Marker = "---page-info---"

// WithFooter returns text followed by a blank line and the page-info footer
// when hasMore is true, and text unchanged otherwise. pagetest.ParseFooter
// gives the text back exactly, trailing newlines included.
func WithFooter(text string, hasMore bool, token string) string {
	if !hasMore {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + len(token) + 48)
	b.WriteString(text)
	if text != "" {
		b.WriteString("\n\n")
	}
	b.WriteString(Marker + "\nhas_more: true\nnext_token: ")
	b.WriteString(token)
	return b.String()
}
