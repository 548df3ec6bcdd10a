package browse

import (
	"context"
	"mime"
	"net/url"
	"strings"

	"github.com/yorozu-bot/yorozu/tools/page"
)

// scrapeToken is the continuation state of scrape_url.
type scrapeToken struct {
	URL    string `json:"u"`
	Offset int    `json:"o"` // runes of the document already returned
}

// Scrape runs scrape_url: the main text of the page at rawURL, at most
// maxChars characters from where token left off.
func (b *Browser) Scrape(ctx context.Context, rawURL string, maxChars int, token string) string {
	if maxChars <= 0 {
		maxChars = 4000
	}
	maxChars = b.pageChars(maxChars)
	var st scrapeToken
	if token != "" {
		if err := b.deps.Signer.Verify("scrape_url", strings.TrimSpace(token), &st); err != nil {
			return tokenMessage(err)
		}
		rawURL = st.URL
	}
	u, ok := parseHTTPURL(rawURL)
	if !ok {
		return "Invalid URL."
	}
	doc, err := b.get(ctx, u)
	if err != nil {
		return fetchFailure(u, err)
	}
	title, kind, text, note := readable(doc)
	if note != "" {
		return note
	}
	if token == "" {
		b.keep(ctx, KeptDoc{URL: doc.URL.String(), Title: title, MediaType: kind, Size: int64(len(doc.Body)),
			Text: text, Tool: "scrape_url"})
	}
	pieces, next, more := take([]string{text}, cursor{Offset: st.Offset}, maxChars, 1)
	if len(pieces) == 0 {
		return "No more content."
	}
	out := pieces[0].Text
	var nextToken string
	if more {
		if nextToken, err = b.deps.Signer.Sign("scrape_url", scrapeToken{URL: u.String(), Offset: next.Offset}); err != nil {
			return "Failed to fetch " + u.Redacted() + ": " + err.Error()
		}
	}
	return page.WithFooter(out, more, nextToken)
}

// readable turns a fetched page into the document scrape_url pages over: a
// title and URL header, then the text; kind is html or the media type. note
// is set instead when the page is not text.
func readable(doc *document) (title, kind, text, note string) {
	mt, _, _ := mime.ParseMediaType(doc.ContentType)
	switch {
	case mt == "application/pdf" || isPDF(doc.Body):
		return "", "", "", "This URL is a PDF; use pdf_to_text to read it."
	case mt == "" || mt == "text/html" || mt == "application/xhtml+xml" || looksHTML(doc.Body):
		p, err := Extract(doc.Body, doc.ContentType)
		if err != nil {
			return "", "", "", "Failed to fetch " + doc.URL.Redacted() + ": " + err.Error()
		}
		return p.Title, "html", header(p.Title, doc.URL) + p.Text, ""
	case strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml"):
		return "", mt, header("", doc.URL) + collapseBlankLines(decode(doc.Body, doc.ContentType)), ""
	}
	return "", "", "", "Failed to fetch " + doc.URL.Redacted() + ": unsupported content type " + mt
}

func header(title string, u *url.URL) string {
	var b strings.Builder
	if title != "" {
		b.WriteString("Title: " + title + "\n")
	}
	b.WriteString("URL: " + u.Redacted() + "\n\n")
	return b.String()
}

func looksHTML(body []byte) bool {
	head := strings.ToLower(strings.TrimSpace(string(body[:min(len(body), 512)])))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") || strings.Contains(head, "<head")
}
