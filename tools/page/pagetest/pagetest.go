// Package pagetest reads the page-info footer back, for the tests of the
// paged tools: the model reads footers itself, so nothing else in yorozu
// needs to.
package pagetest

import (
	"strings"

	"github.com/yorozu-bot/yorozu/tools/page"
)

// ParseFooter splits a result written by page.WithFooter into its text,
// whether more follows and the token. A result without a footer has hasMore
// false. A footer after a single newline (as the pipeline's trimming leaves
// it) is recognised too.
func ParseFooter(result string) (text string, hasMore bool, token string) {
	var rest string
	switch i := strings.LastIndex(result, "\n"+page.Marker+"\n"); {
	case strings.HasPrefix(result, page.Marker+"\n") && i < 0:
		rest = result[len(page.Marker)+1:]
	case i < 0:
		return result, false, ""
	default:
		text = strings.TrimSuffix(result[:i], "\n")
		rest = result[i+len(page.Marker)+2:]
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
