package browse

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/tools/fetch"
)

func TestPDFChainReturnsAllTextOnce(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	for _, maxChars := range []int{300, 1000, 100000} {
		t.Run(fmt.Sprint(maxChars), func(t *testing.T) {
			parts := walk(t, e.b.PDF(t.Context(), e.url("/doc.pdf"), maxChars, ""), func(tok string) string {
				return e.b.PDF(t.Context(), "ignored", maxChars, tok)
			})
			if !strings.HasPrefix(parts[0], "PDF: "+e.url("/doc.pdf")+" (4 pages)\n\n[Page 1/4]\np01 l01 ") {
				t.Errorf("first part starts %q", parts[0][:min(80, len(parts[0]))])
			}
			// Lines may be cut mid-way at a page's character limit; joined
			// back together they must be every line exactly once, in order.
			var text strings.Builder
			for _, p := range parts {
				for _, l := range strings.Split(p, "\n") {
					if !strings.HasPrefix(l, "[Page ") && !strings.HasPrefix(l, "PDF: ") {
						text.WriteString(l)
					}
				}
			}
			var want strings.Builder
			for _, pg := range pdfPages(4, 12) {
				for _, l := range pg {
					want.WriteString(l)
				}
			}
			if text.String() != want.String() {
				t.Errorf("chain text:\n%s\nwant\n%s", text.String(), want.String())
			}
		})
	}
}

// TestPagesFitThePipelineBudget: with the pipeline's 6,000-character cap,
// the default 8,000-character pages are made smaller so the pipeline never
// cuts them, and the chain still returns all the text exactly once.
func TestPagesFitThePipelineBudget(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	b, err := NewBrowser(Deps{Fetcher: e.b.deps.Fetcher, Searcher: e.search, Signer: e.signer, MaxResultChars: llm.MaxResultChars})
	if err != nil {
		t.Fatal(err)
	}
	first := b.PDF(t.Context(), e.url("/big.pdf"), 0, "")
	raw := []string{first}
	parts := walk(t, first, func(tok string) string {
		r := b.PDF(t.Context(), "ignored", 0, tok)
		raw = append(raw, r)
		return r
	})
	for i, r := range raw {
		if n := len([]rune(r)); n > llm.MaxResultChars {
			t.Errorf("result %d has %d characters, over the pipeline's %d", i, n, llm.MaxResultChars)
		}
		if llm.TrimResult(r, llm.MaxResultChars) != r {
			t.Errorf("the pipeline would cut result %d", i)
		}
	}
	var text, want strings.Builder
	for _, p := range parts {
		for _, l := range strings.Split(p, "\n") {
			if !strings.HasPrefix(l, "[Page ") && !strings.HasPrefix(l, "PDF: ") {
				text.WriteString(l)
			}
		}
	}
	for _, pg := range pdfPages(20, 20) {
		for _, l := range pg {
			want.WriteString(l)
		}
	}
	if len(parts) < 2 || text.String() != want.String() {
		t.Errorf("chain of %d parts does not return the 20-page PDF exactly once", len(parts))
	}
}

func TestPDFAtMost25PagesACall(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	parts := walk(t, e.b.PDF(t.Context(), e.url("/thirty.pdf"), 30000, ""), func(tok string) string {
		return e.b.PDF(t.Context(), "", 30000, tok)
	})
	if len(parts) != 2 {
		t.Fatalf("%d calls, want 2", len(parts))
	}
	if n := strings.Count(parts[0], "[Page "); n != 25 {
		t.Errorf("first call has %d pages", n)
	}
	if !strings.Contains(parts[1], "[Page 26/30]\np26 l01") || strings.Count(parts[1], "[Page ") != 5 {
		t.Errorf("second call:\n%s", parts[1])
	}
}

func TestPDFMessages(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	small := newEnv(t, fetch.Options{MaxBytes: 1000})
	for _, tc := range []struct {
		name, url, want string
		b               *Browser
	}{
		{"local path", "/etc/passwd", "Only http(s) PDF URLs are supported.", e.b},
		{"file URL", "file:///tmp/a.pdf", "Only http(s) PDF URLs are supported.", e.b},
		{"relative", "docs/a.pdf", "Only http(s) PDF URLs are supported.", e.b},
		{"too large", small.url("/doc.pdf"), "PDF exceeds the configured size limit.", small.b},
		{"blocked", "http://[::ffff:10.0.0.1]/a.pdf", "Blocked URL: http://[::ffff:10.0.0.1]/a.pdf (IPv4-mapped IPv6 address ::ffff:10.0.0.1)", e.b},
		{"broken", e.url("/broken.pdf"), "Failed to read PDF " + e.url("/broken.pdf") + ": broken PDF: ", e.b},
		{"not a PDF", e.url("/utf8.html"), "Failed to read PDF " + e.url("/utf8.html") + ": not a PDF file", e.b},
		{"404", e.url("/nope.pdf"), "Failed to fetch " + e.url("/nope.pdf") + ": HTTP 404 Not Found", e.b},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.PDF(t.Context(), tc.url, 8000, ""); !strings.HasPrefix(got, tc.want) {
				t.Errorf("PDF = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPDFHugeObjectCountsRefused(t *testing.T) {
	for _, data := range []string{
		"%PDF-1.4\nxref\n99999999999 2\n0000000000 65535 f\n0000000010 00000 n\ntrailer << /Size 3 >>\nstartxref\n9\n%%EOF",
		"%PDF-1.5\n1 0 obj << /Type /XRef /Size 900000000000 /W [1 2 1] >> stream\nendstream endobj\nstartxref\n9\n%%EOF",
		"%PDF-1.5\n1 0 obj << /Type /XRef /Size 4 /Index [0 4 77777777777 3] >> stream\nendstream endobj\nstartxref\n9\n%%EOF",
	} {
		if _, err := PDFPages([]byte(data)); err == nil || !strings.Contains(err.Error(), "too many objects") {
			t.Errorf("PDFPages(%q) = %v, want too many objects", data, err)
		}
	}
}

func TestPDFPagesSkipsBrokenPage(t *testing.T) {
	data := makePDF(t, pdfPages(3, 2))
	// Point page 2's content stream at an object that does not exist.
	re := regexp.MustCompile(`/Contents (\d+) 0 R`)
	locs := re.FindAllSubmatchIndex(data, -1)
	if len(locs) != 3 {
		t.Fatalf("found %d content references", len(locs))
	}
	broken := append([]byte{}, data[:locs[1][2]]...)
	broken = append(broken, bytes.Repeat([]byte("9"), locs[1][3]-locs[1][2])...)
	broken = append(broken, data[locs[1][3]:]...)
	pages, err := PDFPages(broken)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || !strings.Contains(pages[0], "p01 l01") || pages[1] != "" || !strings.Contains(pages[2], "p03 l02") {
		t.Errorf("pages = %q", pages)
	}
}

// FuzzPDF: whatever the bytes, PDFPages returns pages or an error and never
// panics or hangs.
func FuzzPDF(f *testing.F) {
	good := makePDF(f, pdfPages(2, 3))
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("%PDF-1.4\n"))
	f.Add([]byte("%PDF-1.7\n1 0 obj << /Type /Pages /Kids [1 0 R] /Count 1 >> endobj\ntrailer << /Root << /Pages 1 0 R >> >>\n%%EOF"))
	f.Add([]byte("not a pdf"))
	f.Add([]byte("%PDF-1.4\nxref\n99999999999 2\n0000000000 65535 f\ntrailer << /Size 3 >>\nstartxref\n9\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pages, err := PDFPages(data)
		if err == nil && len(pages) == 0 {
			t.Fatal("no pages and no error")
		}
	})
}
