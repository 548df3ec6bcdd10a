package browse

import (
	"bytes"
	"errors"
	"mime"
	"path"
	"strings"
)

// Document kinds ReadDocument reads, by file extension.
var documentKinds = map[string]string{
	".txt": "txt", ".text": "txt", ".md": "md", ".markdown": "md", ".csv": "csv", ".json": "json",
	".html": "html", ".htm": "html", ".pdf": "pdf",
}

// ErrNotDocument is a file ReadDocument does not read: not text, Markdown,
// CSV, JSON, HTML or PDF.
var ErrNotDocument = errors.New("not a text, Markdown, CSV, JSON, HTML or PDF file")

// DocumentKind is the kind of document a file named filename, served as
// contentType, is (txt, md, csv, json, html, pdf), or "" when ReadDocument
// does not read it.
func DocumentKind(filename, contentType string) string {
	if k, ok := documentKinds[strings.ToLower(path.Ext(filename))]; ok {
		return k
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/pdf":
		return "pdf"
	case mt == "text/html" || mt == "application/xhtml+xml":
		return "html"
	case mt == "text/csv":
		return "csv"
	case mt == "text/markdown":
		return "md"
	case mt == "application/json":
		return "json"
	case mt == "text/plain":
		return "txt"
	}
	return ""
}

// ReadDocument extracts the text of a document file (an attachment) with
// the web tools' own reading: the encoding from the content type, a BOM or
// a meta tag (Shift_JIS, EUC-JP, …), PDF pages as "--- page N ---"
// sections, an HTML page's main text. It returns the kind (DocumentKind)
// and the text; a file of another kind is ErrNotDocument, one with no text
// an error.
func ReadDocument(data []byte, filename, contentType string) (kind, text string, err error) {
	kind = DocumentKind(filename, contentType)
	switch {
	case kind == "" && isPDF(data):
		kind = "pdf"
	case kind == "":
		return "", "", ErrNotDocument
	}
	switch kind {
	case "pdf":
		pages, err := PDFPages(data)
		if err != nil {
			return kind, "", err
		}
		if !hasText(pages, cursor{}) {
			return kind, "", errors.New("no text could be extracted")
		}
		text = joinPages(pages)
	case "html":
		p, err := Extract(data, contentType)
		if err != nil {
			return kind, "", err
		}
		text = p.Text
		if p.Title != "" {
			text = p.Title + "\n\n" + text
		}
	default:
		if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			return kind, "", errors.New("not a text file")
		}
		text = decode(data, contentType)
	}
	if strings.TrimSpace(text) == "" {
		return kind, "", errors.New("no text could be extracted")
	}
	return kind, text, nil
}
