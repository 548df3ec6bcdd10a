package browse

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// innerText renders the text under n the way a browser lays out innerText:
// runs of white space become one space, block elements start new lines,
// paragraphs and headings a blank line, table cells a tab, and <pre> keeps
// its spacing. It follows render.InnerText of go-readability (MIT, the
// library that finds the article), including its TeX output for MathML and
// MathJax 3 formulas, with one difference that is why it exists: the output
// buffer is sized once from the length of the text. render.InnerText grows
// its buffer step by step, which for a megabyte of text allocates five
// times that and was a fifth of all allocations in Extract. MathJax 2
// <script type="math/tex"> formulas are not rendered: scripts are removed
// from the page before its text is taken.
func innerText(n *html.Node) string {
	var tb textBuilder
	tb.sb.Grow(textLen(n))
	tb.render(n, false)
	return tb.sb.String()
}

// textLen is the length in bytes of the text nodes under n.
func textLen(n *html.Node) int {
	if n.Type == html.TextNode {
		return len(n.Data)
	}
	total := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		total += textLen(c)
	}
	return total
}

// textBuilder writes words, spaces and line breaks, holding back a space
// until a word follows it and collapsing the breaks between blocks.
type textBuilder struct {
	sb    strings.Builder
	space rune  // space to write before the next word, or 0
	nl    uint8 // line breaks written since the last word
}

func (tb *textBuilder) render(n *html.Node, pre bool) {
	switch n.Type {
	case html.TextNode:
		if pre {
			tb.writeWord(n.Data)
			return
		}
		start := -1
		for i, r := range n.Data {
			if !unicode.IsSpace(r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				tb.writeWord(n.Data[start:i])
				start = -1
			}
			if r == '\u00A0' {
				tb.queueSpace(r)
			} else {
				tb.queueSpace(' ')
			}
		}
		if start >= 0 {
			tb.writeWord(n.Data[start:])
		}
		return
	case html.ElementNode:
		if ariaHidden(n) {
			return
		}
		switch n.Data {
		case "head", "meta", "style", "script", "iframe",
			"audio", "video", "track", "source", "canvas", "svg", "map", "area":
			return
		case "math":
			if el := findAnnotation(n, "application/x-tex"); el != nil {
				tb.writeTeX(childText(el), attr(n, "display") == "block")
			}
			return
		case "mjx-container":
			if tex := findLatex(n); tex != "" {
				tb.writeTeX(tex, attr(n, "display") == "true")
			}
			return
		case "br":
			tb.newline(1, false)
		case "hr", "p", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table":
			tb.newline(2, true)
		case "pre":
			tb.newline(2, true)
			pre = true
		case "th", "td":
			tb.queueSpace('\t')
		case "div", "figure", "figcaption", "picture", "li", "dt", "dd",
			"header", "footer", "main", "section", "article", "aside", "nav", "address",
			"details", "summary", "dialog", "form", "fieldset",
			"caption", "thead", "tbody", "tfoot", "tr":
			tb.newline(1, true)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		tb.render(c, pre)
	}
}

func (tb *textBuilder) queueSpace(r rune) {
	if tb.space == 0 {
		tb.space = r
	}
}

// newline writes n line breaks; with collapse, only as many as it takes
// to have n since the last word, and none at the start of the text.
func (tb *textBuilder) newline(n uint8, collapse bool) {
	if collapse {
		if tb.nl >= n {
			return
		}
		n -= tb.nl
	}
	tb.nl += n
	if collapse && tb.sb.Len() == 0 {
		return
	}
	for ; n > 0; n-- {
		tb.sb.WriteByte('\n')
	}
}

func (tb *textBuilder) writeWord(w string) {
	if tb.space != 0 && tb.nl == 0 {
		tb.sb.WriteRune(tb.space)
	}
	tb.sb.WriteString(w)
	tb.nl = 0
	tb.space = 0
}

func (tb *textBuilder) writeTeX(expr string, block bool) {
	expr = strings.TrimSpace(expr)
	if block {
		tb.newline(2, true)
		tb.writeWord("$$\n" + expr + "\n$$")
		tb.newline(2, true)
	} else {
		tb.writeWord("$" + expr + "$")
	}
}

// ariaHidden reports whether n is hidden from readers by aria-hidden.
func ariaHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "aria-hidden" {
			return a.Val == "" || a.Val == "true"
		}
	}
	return false
}

// childText concatenates the text nodes directly under n.
func childText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// findAnnotation returns the first <annotation> under n in the given
// encoding, where MathML keeps a formula's source.
func findAnnotation(n *html.Node, encoding string) *html.Node {
	return findNode(n, func(c *html.Node) bool {
		return c != n && c.Data == "annotation" && attr(c, "encoding") == encoding
	})
}

// findLatex returns the data-latex attribute under n, where MathJax 3
// keeps a formula's source.
func findLatex(n *html.Node) string {
	if el := findNode(n, func(c *html.Node) bool { return c != n && hasAttr(c, "data-latex") }); el != nil {
		return attr(el, "data-latex")
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}
