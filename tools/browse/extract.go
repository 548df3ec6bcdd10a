package browse

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// Page is the readable content of an HTML page.
type Page struct {
	Title string
	Text  string
}

// metaCharset finds a charset declared in a meta tag further into the page
// than the 1024 bytes the HTML sniffing algorithm looks at; Japanese pages
// with long heads do that.
var metaCharset = regexp.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)`)

// decode returns body as UTF-8 text; see utf8Body.
func decode(body []byte, contentType string) string {
	return string(utf8Body(body, contentType))
}

// utf8Body returns body as UTF-8: the charset of the Content-Type header,
// else a BOM or meta declaration, else UTF-8 if it is valid. Invalid
// sequences become U+FFFD. A body that already is valid UTF-8 is returned
// as is, so the common case costs one validation pass and no copy.
func utf8Body(body []byte, contentType string) []byte {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain {
		head := body[:min(len(body), 32<<10)]
		if m := metaCharset.FindSubmatch(head); m != nil {
			if e, n := charset.Lookup(string(m[1])); e != nil {
				enc, name = e, n
			}
		} else if utf8.Valid(body) {
			return body
		}
	}
	if name == "utf-8" {
		if utf8.Valid(body) {
			return body
		}
		return bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	return out
}

// Extract returns the main text of an HTML page: what readability finds when
// the page looks like an article (and is not book-length, see
// maxReadabilityText), otherwise the text of its article, main or body
// element once scripts, navigation and the like are dropped. Blank lines are
// collapsed.
//
// The page is decoded and parsed once and the one tree serves the title,
// the readability check, readability itself and, unless readability already
// changed it, the fallback (BenchmarkExtract1MB, BenchmarkExtractNews1MB).
func Extract(body []byte, contentType string) (Page, error) {
	src := utf8Body(body, contentType)
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return Page{}, err
	}
	title := collapseSpace(nodeText(findNode(doc, func(n *html.Node) bool { return n.DataAtom == atom.Title })))
	// Readability keeps <template> and <noscript> contents; nothing in
	// these (or scripts and styles) is ever main text.
	removeElements(doc, neverText)
	parser := readability.NewParser()
	parser.DisableJSONLD = true
	if !longerThan(doc, maxReadabilityText) && readerable(&parser, doc) {
		// ParseAndMutate spares a copy of the whole tree (a sixth of the
		// time on large pages); the rare fallback after it parses again.
		// No page URL: readability would resolve every link and image
		// address against it, a tenth of the allocations for nothing
		// that shows in the text.
		art, err := parser.ParseAndMutate(doc, nil)
		if err == nil && art.Node != nil {
			if text := collapseBlankLines(innerText(art.Node)); text != "" {
				if t := collapseSpace(art.Title()); t != "" {
					title = t
				}
				return Page{Title: title, Text: text}, nil
			}
		}
		if doc, err = html.Parse(bytes.NewReader(src)); err != nil {
			return Page{}, err
		}
	}
	return Page{Title: title, Text: fallbackText(doc)}, nil
}

// maxReadabilityText bounds the text, in bytes, that readability scores.
// Its work grows with the text (link density and character counts are taken
// over whole subtrees, again for each candidate), so a book-length page —
// a 10 MB fetch could take a second of CPU — goes to the structural
// fallback instead, which still drops navigation, footers, asides and
// scripts. 256 KiB is some 85,000 Japanese characters: far beyond an article.
const maxReadabilityText = 256 << 10

// longerThan reports whether the text under n exceeds limit bytes, stopping
// as soon as it does.
func longerThan(n *html.Node, limit int) bool {
	total := 0
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.TextNode {
			total += len(n.Data)
			return total > limit
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(n)
}

// readerable reports whether readability should be tried on doc, exactly as
// ps.CheckDocument(doc) does. CheckDocument adds up the text lengths of
// paragraphs until it has seen enough, but on most article pages it meets the
// enclosing <article> first and builds all its text: a megabyte string, a
// tenth of the allocations, on a long page. A subtree offers CheckDocument
// only some of the page's candidates (it looks at descendants only), so a yes
// for the container of the first paragraphs is a yes for the page, and
// asking there first is cheap. Paragraphs right under <body> are skipped:
// asking about the body costs as much as asking about the page.
func readerable(ps *readability.Parser, doc *html.Node) bool {
	const maxContainers = 3
	var tried []*html.Node
	var try func(*html.Node) bool
	try = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil && len(tried) < maxContainers; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.P {
				if parent := c.Parent; parent.DataAtom != atom.Body && !slices.Contains(tried, parent) {
					tried = append(tried, parent)
					if ps.CheckDocument(parent) {
						return true
					}
				}
				continue
			}
			if try(c) {
				return true
			}
		}
		return false
	}
	return try(doc) || ps.CheckDocument(doc)
}

// dropped are the elements that never hold main text.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Head: true, atom.Nav: true, atom.Footer: true, atom.Aside: true,
}

var neverText = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true}

// removeElements removes the elements in drop, and comments, from the tree.
func removeElements(n *html.Node, drop map[atom.Atom]bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && drop[c.DataAtom] || c.Type == html.CommentNode {
			n.RemoveChild(c)
		} else {
			removeElements(c, drop)
		}
		c = next
	}
}

func fallbackText(doc *html.Node) string {
	removeElements(doc, dropped)
	root := doc
	for _, a := range []atom.Atom{atom.Article, atom.Main, atom.Body} {
		if n := findNode(doc, func(n *html.Node) bool { return n.DataAtom == a }); n != nil {
			root = n
			break
		}
	}
	return collapseBlankLines(innerText(root))
}

// collapseBlankLines trims each line's trailing space and squeezes runs of
// blank lines into one, trimming the text's ends.
func collapseBlankLines(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	blank := 0
	for line := range strings.Lines(s) {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if strings.TrimSpace(line) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank > 0 {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(line)
	}
	return b.String()
}

// collapseSpace joins all runs of white space into single spaces.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, c := range strings.Fields(a.Val) {
				if c == class {
					return true
				}
			}
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// findNode returns the first node under n (n included, depth first) for
// which match holds, or nil.
func findNode(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n == nil {
		return nil
	}
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findNode(c, match); f != nil {
			return f
		}
	}
	return nil
}

// nodeText concatenates the text under n.
func nodeText(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b bytes.Buffer
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
