package browse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/page"
)

// MaxPDFPages is how many pages pdf_to_text returns in one call at most.
const MaxPDFPages = 25

// pdfToken is the continuation state of pdf_to_text.
type pdfToken struct {
	URL    string `json:"u"`
	Page   int    `json:"p"` // 0-based page to continue from
	Offset int    `json:"o"` // runes of that page already returned
}

// PDF runs pdf_to_text: the text of the PDF at rawURL by page, at most
// maxChars characters and MaxPDFPages pages from where token left off.
func (b *Browser) PDF(ctx context.Context, rawURL string, maxChars int, token string) string {
	if maxChars <= 0 {
		maxChars = 8000
	}
	maxChars = b.pageChars(maxChars)
	var st pdfToken
	if token != "" {
		if err := b.deps.Signer.Verify("pdf_to_text", strings.TrimSpace(token), &st); err != nil {
			return tokenMessage(err)
		}
		rawURL = st.URL
	}
	u, ok := parseHTTPURL(rawURL)
	if !ok {
		return "Only http(s) PDF URLs are supported."
	}
	doc, err := b.get(ctx, u)
	if errors.Is(err, fetch.ErrTooLarge) {
		return "PDF exceeds the configured size limit."
	}
	if err != nil {
		return fetchFailure(u, err)
	}
	pages, err := PDFPages(doc.Body)
	if err != nil {
		return "Failed to read PDF " + u.Redacted() + ": " + err.Error()
	}
	if !hasText(pages, cursor{}) {
		return "No text could be extracted from this PDF (it may hold only scanned images)."
	}
	if token == "" {
		b.keep(ctx, KeptDoc{URL: doc.URL.String(), Title: path.Base(doc.URL.Path), MediaType: "pdf",
			Size: int64(len(doc.Body)), Text: joinPages(pages), Tool: "pdf_to_text"})
	}
	pieces, next, more := take(pages, cursor{Page: st.Page, Offset: st.Offset}, maxChars, MaxPDFPages)
	if len(pieces) == 0 {
		return "No more content."
	}
	var out strings.Builder
	if st.Page == 0 && st.Offset == 0 {
		fmt.Fprintf(&out, "PDF: %s (%d pages)\n\n", u.Redacted(), len(pages))
	}
	writePieces(&out, pieces, len(pages))
	var nextToken string
	if more {
		if nextToken, err = b.deps.Signer.Sign("pdf_to_text", pdfToken{URL: u.String(), Page: next.Page, Offset: next.Offset}); err != nil {
			return "Failed to read PDF " + u.Redacted() + ": " + err.Error()
		}
	}
	return page.WithFooter(strings.TrimRight(out.String(), "\n"), more, nextToken)
}

// joinPages is a PDF's text as one document, each page under a marker.
func joinPages(pages []string) string {
	var b strings.Builder
	for i, p := range pages {
		fmt.Fprintf(&b, "--- page %d ---\n%s\n\n", i+1, strings.TrimSpace(p))
	}
	return strings.TrimRight(b.String(), "\n")
}

func writePieces(out *strings.Builder, pieces []piece, total int) {
	for _, p := range pieces {
		cont := ""
		if p.Continued {
			cont = ", continued"
		}
		fmt.Fprintf(out, "[Page %d/%d%s]\n%s\n\n", p.Page+1, total, cont, strings.TrimRight(p.Text, "\n"))
	}
}

func isPDF(body []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(body[:min(len(body), 1024)], " \t\r\n\x00"), []byte("%PDF-"))
}

// PDFPages returns the text of each page of a PDF. A page that fails to
// extract comes back empty; a file that cannot be read at all is an error.
// Panics inside the PDF library are recovered: a hostile file must not take
// the bot down.
func PDFPages(data []byte) (pages []string, err error) {
	if !isPDF(data) {
		return nil, errors.New("not a PDF file")
	}
	if err := checkObjectCounts(data); err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			pages, err = nil, fmt.Errorf("broken PDF: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("broken PDF: %w", err)
	}
	for _, p := range pageList(r) {
		pages = append(pages, pageText(p))
	}
	if len(pages) == 0 {
		return nil, errors.New("broken PDF: no pages")
	}
	return pages, nil
}

// maxObjects bounds the object numbers a PDF may claim. The library sizes
// its cross-reference table from the claims before reading anything, so a
// few bytes saying "object 99999999999" would allocate gigabytes.
const maxObjects = 1 << 21

var (
	sizeEntry  = regexp.MustCompile(`/Size\s+(\d+)`)
	indexEntry = regexp.MustCompile(`/Index\s*\[([\d\s]*)\]`)
	xrefHeader = regexp.MustCompile(`(?m)^[ \t]*(\d+)[ \t]+(\d+)[ \t]*\r?$`)
)

func checkObjectCounts(data []byte) error {
	tooMany := errors.New("broken PDF: too many objects")
	big := func(nums ...[]byte) bool {
		var sum int64
		for _, n := range nums {
			v, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil || v > maxObjects {
				return true
			}
			sum += v
		}
		return sum > maxObjects
	}
	for _, m := range sizeEntry.FindAllSubmatch(data, -1) {
		if big(m[1]) {
			return tooMany
		}
	}
	for _, m := range indexEntry.FindAllSubmatch(data, -1) {
		f := bytes.Fields(m[1])
		for i := 0; i+1 < len(f); i += 2 {
			if big(f[i], f[i+1]) {
				return tooMany
			}
		}
	}
	for _, m := range xrefHeader.FindAllSubmatch(data, -1) {
		if big(m[1], m[2]) {
			return tooMany
		}
	}
	return nil
}

// Limits of the page tree walk: a crafted tree may be cyclic or absurdly
// deep, which the library's own Page lookup would loop on.
const (
	maxPageTreeDepth = 32
	maxPageTreeNodes = 20000
)

// pageList walks the page tree in document order.
func pageList(r *pdf.Reader) []pdf.Page {
	var pages []pdf.Page
	nodes := 0
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		nodes++
		if depth > maxPageTreeDepth || nodes > maxPageTreeNodes {
			return
		}
		kids := v.Key("Kids")
		if v.Key("Type").Name() == "Pages" || kids.Kind() == pdf.Array {
			for i := 0; i < kids.Len() && nodes <= maxPageTreeNodes; i++ {
				walk(kids.Index(i), depth+1)
			}
			return
		}
		if v.Kind() == pdf.Dict {
			pages = append(pages, pdf.Page{V: v})
		}
	}
	walk(r.Trailer().Key("Root").Key("Pages"), 0)
	return pages
}

// pageText extracts one page, empty on failure.
func pageText(p pdf.Page) (text string) {
	defer func() {
		if recover() != nil {
			text = ""
		}
	}()
	t, err := p.GetPlainText(nil)
	if err != nil {
		return ""
	}
	return collapseBlankLines(t)
}
