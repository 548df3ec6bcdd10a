package browse

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/page"
	"github.com/yorozu-bot/yorozu/tools/page/pagetest"
)

var epoch = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// fakeSearcher returns canned results and records the queries.
type fakeSearcher struct {
	mu      sync.Mutex
	results []Result
	err     error
	queries []string
}

var _ Searcher = (*fakeSearcher)(nil)

func (f *fakeSearcher) Search(_ context.Context, q string, max int) ([]Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	if f.err != nil {
		return nil, f.err
	}
	return f.results[:min(max, len(f.results))], nil
}

type env struct {
	b      *Browser
	srv    *httptest.Server
	signer *page.Signer
	search *fakeSearcher
	now    time.Time
}

// newEnv serves testdata and generated documents on 127.0.0.1, which the
// guarded client reaches only because the allowlist names it.
func newEnv(t *testing.T, opts fetch.Options) *env {
	t.Helper()
	e := &env{now: epoch, search: &fakeSearcher{}}
	mux := http.NewServeMux()
	serveFile := func(path, file, ct string) {
		body, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		serveBytes(mux, path, body, ct)
	}
	serveFile("/utf8.html", "utf8.html", "text/html; charset=utf-8")
	serveFile("/sjis.html", "sjis.html", "text/html")
	serveFile("/eucjp.html", "eucjp.html", "text/html")
	serveFile("/sjis-header.html", "sjis_header_only.html", "text/html; charset=Shift_JIS")
	serveFile("/short.html", "short.html", "text/html")
	serveBytes(mux, "/long.html", []byte(longArticle(60)), "text/html; charset=utf-8")
	serveBytes(mux, "/doc.pdf", makePDF(t, pdfPages(4, 12)), "application/pdf")
	serveBytes(mux, "/thirty.pdf", makePDF(t, pdfPages(30, 2)), "application/pdf")
	serveBytes(mux, "/big.pdf", makePDF(t, pdfPages(20, 20)), "application/pdf")
	serveBytes(mux, "/broken.pdf", []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer garbage"), "application/pdf")
	serveBytes(mux, "/data.csv", []byte("city,population\n東京,13960000\n大阪,2750000\n"), "text/csv; charset=utf-8")
	serveBytes(mux, "/blob.bin", []byte{0x7f, 'E', 'L', 'F', 0, 0, 1}, "application/octet-stream")
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)

	if opts.Allowlist == nil {
		opts.Allowlist = []string{"127.0.0.1"}
	}
	client, err := fetch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.signer = page.NewSigner([]byte("test secret, 32 bytes long......"), func() time.Time { return e.now })
	e.b, err = NewBrowser(Deps{Fetcher: client, Searcher: e.search, Signer: e.signer})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func serveBytes(mux *http.ServeMux, path string, body []byte, ct string) {
	mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	})
}

func (e *env) url(path string) string { return e.srv.URL + path }

// longArticle is an article of n numbered paragraphs.
func longArticle(n int) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><title>Long read</title><script>track()</script></head><body><nav>Home | About</nav><article><h1>Long read</h1>\n")
	for i := range n {
		fmt.Fprintf(&b, "<p>Paragraph %03d. The committee met again to discuss the harvest, the weather and the state of the roads; いろはにほへと ちりぬるを %03d.</p>\n", i, i)
	}
	b.WriteString("</article><footer>Footer</footer></body></html>")
	return b.String()
}

// pdfPages returns n pages of lines, each line unique ("p03 l07 …").
func pdfPages(n, lines int) [][]string {
	pages := make([][]string, n)
	for p := range pages {
		for l := range lines {
			pages[p] = append(pages[p], fmt.Sprintf("p%02d l%02d the quick brown fox jumps over the lazy dog", p+1, l+1))
		}
	}
	return pages
}

func makePDF(t testing.TB, pages [][]string) []byte {
	t.Helper()
	f := fpdf.New("P", "mm", "A4", "")
	f.SetFont("Helvetica", "", 11)
	f.SetAutoPageBreak(false, 0)
	for _, lines := range pages {
		f.AddPage()
		for _, l := range lines {
			f.Cell(0, 7, l)
			f.Ln(7)
		}
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// walk follows a paging chain from first to its end, returning each result
// with its footer removed, and fails if it does not end.
func walk(t *testing.T, first string, next func(token string) string) []string {
	t.Helper()
	var out []string
	res := first
	for i := 0; ; i++ {
		if i > 500 {
			t.Fatal("paging chain does not end")
		}
		text, more, token := pagetest.ParseFooter(res)
		out = append(out, text)
		if !more {
			return out
		}
		if token == "" {
			t.Fatalf("has_more without a token: %q", res)
		}
		res = next(token)
	}
}
