package page

import "strings"

// Marker opens the footer of a partial result.
const Marker = "---page-info---"

// WithFooter returns text followed by a blank line and the page-info footer
// when hasMore is true, and text unchanged otherwise. ParseFooter gives the
// text back exactly, trailing newlines included.
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

// ParseFooter splits a result written by WithFooter into its text, whether
// more follows and the token. A result without a footer has hasMore false.
// A footer after a single newline (as the pipeline's trimming leaves it) is
// recognised too.
func ParseFooter(result string) (text string, hasMore bool, token string) {
	var rest string
	switch i := strings.LastIndex(result, "\n"+Marker+"\n"); {
	case strings.HasPrefix(result, Marker+"\n") && i < 0:
		rest = result[len(Marker)+1:]
	case i < 0:
		return result, false, ""
	default:
		text = strings.TrimSuffix(result[:i], "\n")
		rest = result[i+len(Marker)+2:]
	}
	for _, line := range strings.Split(rest, "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "has_more":
			hasMore = v == "true"
		case "next_token":
			token = v
		}
	}
	return text, hasMore, token
}
