package browse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/page"
)

// filesToken is the continuation state of search_and_fetch: the candidates
// found by the first call (titles and URLs only, so continuing never searches
// again) and the position in them.
type filesToken struct {
	Session string      `json:"s,omitempty"`
	Type    string      `json:"ft"`
	Cands   []candidate `json:"c"`
	Index   int         `json:"i"` // candidate being read
	Page    int         `json:"p"`
	Offset  int         `json:"o"`
}

type candidate struct {
	Title string `json:"t"`
	URL   string `json:"u"`
}

var fileTypePattern = regexp.MustCompile(`^[a-z0-9]{1,10}$`)

// FilesRequest is one search_and_fetch call.
type FilesRequest struct {
	Query      string
	FileType   string
	MaxResults int // candidates to search for; default 3
	MaxChars   int // default 8000
	Token      string
	Session    string // conversation the call belongs to; tokens are bound to it
}

// SearchAndFetch runs search_and_fetch: it searches for files of a type and
// returns them one at a time, each a block with its URL, title, type, size,
// character count and text, paged like pdf_to_text.
func (b *Browser) SearchAndFetch(ctx context.Context, r FilesRequest) string {
	if r.MaxChars <= 0 {
		r.MaxChars = 8000
	}
	r.MaxChars = b.pageChars(r.MaxChars)
	if r.MaxResults <= 0 {
		r.MaxResults = 3
	}
	var st filesToken
	if r.Token != "" {
		if err := b.deps.Signer.Verify("search_and_fetch", strings.TrimSpace(r.Token), &st); err != nil {
			return tokenMessage(err)
		}
		if st.Session != "" && st.Session != r.Session {
			return "Invalid continuation token: token belongs to another conversation"
		}
	} else {
		st.Session = r.Session
		st.Type = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(r.FileType)), ".")
		if !fileTypePattern.MatchString(st.Type) {
			return "Invalid file type."
		}
		query := strings.TrimSpace(r.Query)
		if query == "" {
			return "[]"
		}
		res, err := b.deps.Searcher.Search(ctx, query+" filetype:"+st.Type, r.MaxResults)
		if err != nil {
			return "Search failed: " + shortReason(err) + ". Try again later or rephrase the query."
		}
		for _, h := range res {
			if _, ok := parseHTTPURL(h.Href); ok {
				st.Cands = append(st.Cands, candidate{Title: h.Title, URL: h.Href})
			}
		}
		if len(st.Cands) == 0 {
			return fmt.Sprintf("No %s files found for: %s", st.Type, query)
		}
	}

	var out strings.Builder
	for ; st.Index < len(st.Cands); st.Index, st.Page, st.Offset = st.Index+1, 0, 0 {
		c := st.Cands[st.Index]
		f, err := b.loadFile(ctx, c.URL, st.Type)
		if err != nil {
			fmt.Fprintf(&out, "Skipped %s: %s\n\n", c.URL, err)
			continue
		}
		if st.Page == 0 && st.Offset == 0 {
			text := f.pages[0]
			if f.kind == "pdf" {
				text = joinPages(f.pages)
			}
			b.keep(ctx, KeptDoc{URL: f.url, Title: c.Title, MediaType: f.kind, Size: int64(f.size), Text: text,
				Tool: "search_and_fetch"})
		}
		pieces, next, more := take(f.pages, cursor{Page: st.Page, Offset: st.Offset}, r.MaxChars, MaxPDFPages)
		if len(pieces) == 0 {
			continue // the token pointed past the end of a file that changed
		}
		fmt.Fprintf(&out, "URL: %s\nTitle: %s\nType: %s\nSize: %d bytes\nCharacters: %d\n", c.URL, c.Title, f.kind, f.size, f.chars)
		if f.kind == "pdf" {
			fmt.Fprintf(&out, "Pages: %d\n", len(f.pages))
			out.WriteString("\n")
			writePieces(&out, pieces, len(f.pages))
		} else {
			out.WriteString("\n")
			for _, p := range pieces {
				out.WriteString(strings.TrimRight(p.Text, "\n") + "\n")
			}
		}
		if more {
			st.Page, st.Offset = next.Page, next.Offset
		} else {
			st.Index, st.Page, st.Offset = st.Index+1, 0, 0
		}
		hasMore := st.Index < len(st.Cands)
		var token string
		if hasMore {
			if token, err = b.deps.Signer.Sign("search_and_fetch", st); err != nil {
				return "Failed to continue: " + err.Error()
			}
		}
		return page.WithFooter(strings.TrimRight(out.String(), "\n"), hasMore, token)
	}
	out.WriteString(fmt.Sprintf("No more %s files could be read.", st.Type))
	return out.String()
}

// file is a fetched candidate ready to page over.
type file struct {
	url   string // after redirects
	kind  string // pdf, html or the requested type
	size  int
	chars int
	pages []string
}

// loadFile fetches a candidate and extracts its text. Errors are short, for
// the "Skipped" line.
func (b *Browser) loadFile(ctx context.Context, raw, want string) (*file, error) {
	u, ok := parseHTTPURL(raw)
	if !ok {
		return nil, errors.New("invalid URL")
	}
	doc, err := b.get(ctx, u)
	if err != nil {
		var be *fetch.BlockedError
		if errors.As(err, &be) {
			return nil, errors.New("blocked URL (" + be.Reason + ")")
		}
		return nil, errors.New(shortReason(err))
	}
	f := &file{url: doc.URL.String(), size: len(doc.Body)}
	mt, _, _ := mime.ParseMediaType(doc.ContentType)
	switch {
	case isPDF(doc.Body):
		f.kind = "pdf"
		if f.pages, err = PDFPages(doc.Body); err != nil {
			return nil, err
		}
	case want == "pdf" || mt == "application/pdf":
		return nil, errors.New("not a PDF file")
	case (want == "html" || want == "htm" || mt == "text/html" || mt == "application/xhtml+xml") && looksHTML(doc.Body):
		f.kind = "html"
		p, err := Extract(doc.Body, doc.ContentType)
		if err != nil {
			return nil, fmt.Errorf("parse HTML: %w", err)
		}
		f.pages = []string{p.Text}
	default:
		if bytes.IndexByte(doc.Body[:min(len(doc.Body), 8192)], 0) >= 0 {
			return nil, errors.New("not a text file")
		}
		f.kind = want
		f.pages = []string{decode(doc.Body, doc.ContentType)}
	}
	for _, p := range f.pages {
		f.chars += utf8.RuneCountInString(p)
	}
	if f.chars == 0 || !hasText(f.pages, cursor{}) {
		return nil, errors.New("no text could be extracted")
	}
	return f, nil
}
