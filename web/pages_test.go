package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// pageRoutes finds the handlers of PageRoutes by pattern.
func pageRoutes(t *testing.T) map[string]Route {
	t.Helper()
	m := map[string]Route{}
	for _, r := range PageRoutes() {
		m[r.Pattern] = r
	}
	return m
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func pagePattern(s screen) string {
	if s.Href == "/" {
		return "GET /{$}"
	}
	return "GET " + s.Href
}

func TestPageRoutesAccess(t *testing.T) {
	routes := pageRoutes(t)
	for _, s := range screens {
		r, ok := routes[pagePattern(s)]
		if !ok || r.Access != Page {
			t.Errorf("screen %s: route %q = %+v, want a Page route (login redirect)", s.Name, pagePattern(s), r)
		}
	}
	for _, p := range []string{"GET /login", "GET /static/"} {
		if r, ok := routes[p]; !ok || r.Access != Open {
			t.Errorf("%s = %+v, want an Open route: the login page needs it before any session", p, r)
		}
	}
}

var (
	scriptTag   = regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`)
	inlineEvent = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	assetRef    = regexp.MustCompile(`(?:href|src)="(/static/[^"]+)"`)
)

// Every screen loads only module scripts from /static, with no inline script
// or handler, so the CSP (script-src 'self') holds and nothing a user typed
// can be script.
func TestScreensHaveNoInlineScript(t *testing.T) {
	routes := pageRoutes(t)
	pages := append([]string{"GET /login"}, func() []string {
		var ps []string
		for _, s := range screens {
			ps = append(ps, pagePattern(s))
		}
		return ps
	}()...)
	for _, p := range pages {
		target := strings.TrimSuffix(strings.TrimPrefix(p, "GET "), "{$}")
		rec := serve(routes[p].Handler, httptest.NewRequest("GET", target, nil))
		body := rec.Body.String()
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s", p, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		if !strings.Contains(body, `<html lang="ja">`) {
			t.Errorf("%s: not marked as Japanese", p)
		}
		scripts := scriptTag.FindAllStringSubmatch(body, -1)
		if len(scripts) == 0 {
			t.Errorf("%s: no script", p)
		}
		for _, m := range scripts {
			if !strings.Contains(m[1], `type="module"`) || !strings.Contains(m[1], `src="/static/js/`) || strings.TrimSpace(m[2]) != "" {
				t.Errorf("%s: script %q is not an external module", p, m[0])
			}
		}
		if inlineEvent.MatchString(body) {
			t.Errorf("%s: inline event handler in %s", p, inlineEvent.FindString(body))
		}
		static := routes["GET /static/"].Handler
		for _, ref := range assetRef.FindAllStringSubmatch(body, -1) {
			if rec := serve(static, httptest.NewRequest("GET", ref[1], nil)); rec.Code != 200 {
				t.Errorf("%s refers to %s: %d", p, ref[1], rec.Code)
			}
		}
	}
	// The chat screen's nav links every screen and River's UI, and marks itself.
	rec := serve(routes["GET /{$}"].Handler, httptest.NewRequest("GET", "/", nil))
	for _, s := range screens {
		if !strings.Contains(rec.Body.String(), `href="`+s.Href+`"`) {
			t.Errorf("nav lacks %s", s.Href)
		}
	}
	if !strings.Contains(rec.Body.String(), `href="/jobs/"`) || !strings.Contains(rec.Body.String(), `<a href="/" aria-current="page">`) {
		t.Errorf("nav lacks the job UI or the current page mark:\n%s", rec.Body.String())
	}
}

// Text from users and models reaches the DOM as text, or as HTML only
// through the sanitiser: no module but markdown.js assigns innerHTML, and
// that one assigns only what DOMPurify returned.
func TestOnlySanitisedHTMLIsAssigned(t *testing.T) {
	err := fs.WalkDir(ui, "ui/static/js", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, _ := fs.ReadFile(ui, p)
		for _, bad := range []string{"outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			if bytes.Contains(src, []byte(bad)) {
				t.Errorf("%s uses %s", p, bad)
			}
		}
		n := bytes.Count(src, []byte(".innerHTML"))
		switch {
		case path.Base(p) == "markdown.js":
			if n != 1 || !bytes.Contains(src, []byte("node.innerHTML = toHTML(")) || !bytes.Contains(src, []byte("return DOMPurify.sanitize(")) {
				t.Errorf("markdown.js must assign innerHTML once, from toHTML (DOMPurify)")
			}
		case n > 0:
			t.Errorf("%s assigns innerHTML; build nodes with el() or use markdown.render", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVendoredFilesCarryLicences(t *testing.T) {
	for _, p := range []string{"marked.LICENSE", "purify.LICENSE", "katex/LICENSE", "VERSIONS"} {
		if _, err := fs.Stat(ui, "ui/static/vendor/"+p); err != nil {
			t.Errorf("vendor/%s: %v", p, err)
		}
	}
}

func TestStaticFiles(t *testing.T) {
	static := pageRoutes(t)["GET /static/"].Handler

	req := httptest.NewRequest("GET", "/static/js/chat.js", nil)
	req.Header.Set("Accept-Encoding", "br, gzip")
	rec := serve(static, req)
	if rec.Code != 200 || rec.Header().Get("Content-Encoding") != "gzip" || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/javascript") {
		t.Fatalf("chat.js with gzip: %d %v", rec.Code, rec.Header())
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := io.ReadAll(zr)
	want, _ := fs.ReadFile(ui, "ui/static/js/chat.js")
	if !bytes.Equal(js, want) {
		t.Error("gzipped chat.js differs from the file")
	}

	// A browser that has the file revalidates and gets 304.
	req = httptest.NewRequest("GET", "/static/js/chat.js", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	if rec := serve(static, req); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("revalidation: %d, %d bytes", rec.Code, rec.Body.Len())
	}

	plain := serve(static, httptest.NewRequest("GET", "/static/js/chat.js", nil))
	if plain.Header().Get("Content-Encoding") != "" || !bytes.Equal(plain.Body.Bytes(), want) || plain.Header().Get("ETag") == rec.Header().Get("ETag") {
		t.Errorf("without gzip: %v", plain.Header())
	}
	font := serve(static, httptest.NewRequest("GET", "/static/vendor/katex/fonts/KaTeX_Main-Regular.woff2", nil))
	if font.Code != 200 || font.Header().Get("Content-Type") != "font/woff2" {
		t.Errorf("KaTeX font: %d %s", font.Code, font.Header().Get("Content-Type"))
	}
	for _, p := range []string{"/static/nope.js", "/static/../pages.go", "/static/js/"} {
		if rec := serve(static, httptest.NewRequest("GET", p, nil)); rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, rec.Code)
		}
	}
}

// countingFS counts the files opened in an fs.FS.
type countingFS struct {
	fs.FS
	mu     sync.Mutex
	opened map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opened[name]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

// The files are read on their first request, once, whatever the number of
// requests at the same time: a start reads none of them.
func TestStaticFilesReadOnFirstUse(t *testing.T) {
	fsys := &countingFS{FS: ui, opened: map[string]int{}}
	static, err := newStaticFiles(fsys, "ui/static")
	if err != nil {
		t.Fatal(err)
	}
	if len(static) < 10 {
		t.Fatalf("%d static files listed", len(static))
	}
	for name := range static {
		if n := fsys.opened["ui/static/"+name]; n != 0 {
			t.Errorf("newStaticFiles opened %s %d times", name, n)
		}
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			req := httptest.NewRequest("GET", "/static/js/chat.js", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			if rec := serve(http.StripPrefix("/static/", static), req); rec.Code != 200 || rec.Header().Get("Content-Encoding") != "gzip" {
				t.Errorf("chat.js: %d %v", rec.Code, rec.Header())
			}
		})
	}
	wg.Wait()
	if n := fsys.opened["ui/static/js/chat.js"]; n != 1 {
		t.Errorf("chat.js read %d times, want 1", n)
	}
}

// budgetBytes is the most one screen may cost a browser, gzipped: its HTML,
// the CSS and every JS module it loads, the vendored libraries and KaTeX's
// CSS included (KaTeX's fonts are not).
const budgetBytes = 150 << 10

var (
	jsImport = regexp.MustCompile(`(?:from|import)\s*\(?\s*'(\.{1,2}/[^']+\.js)'`)
	cssURL   = regexp.MustCompile(`'/static/([^']+\.css)'`)
)

func gzipLen(b []byte) int {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Len()
}

// TestPageBudget follows each screen's module imports (static and dynamic)
// and adds up what a first visit downloads.
func TestPageBudget(t *testing.T) {
	routes := pageRoutes(t)
	for _, s := range screens {
		rec := serve(routes[pagePattern(s)].Handler, httptest.NewRequest("GET", "/", nil))
		total := gzipLen(rec.Body.Bytes())
		files := map[string]bool{}
		var walk func(p string)
		walk = func(p string) {
			if files[p] {
				return
			}
			files[p] = true
			src, err := fs.ReadFile(ui, "ui/static/"+p)
			if err != nil {
				t.Fatalf("%s loads %s: %v", s.Name, p, err)
			}
			if !strings.HasSuffix(p, ".js") {
				return
			}
			for _, m := range jsImport.FindAllSubmatch(src, -1) {
				walk(path.Join(path.Dir(p), string(m[1])))
			}
			for _, m := range cssURL.FindAllSubmatch(src, -1) {
				walk(string(m[1]))
			}
		}
		for _, ref := range assetRef.FindAllStringSubmatch(rec.Body.String(), -1) {
			walk(strings.TrimPrefix(ref[1], "/static/"))
		}
		for p := range files {
			b, _ := fs.ReadFile(ui, "ui/static/"+p)
			total += gzipLen(b)
		}
		t.Logf("%-9s %6.1f KB gzipped in %d files", s.Name, float64(total)/1024, len(files)+1)
		if total > budgetBytes {
			t.Errorf("screen %s costs %d bytes gzipped, over the budget of %d", s.Name, total, budgetBytes)
		}
		if s.Name == "chat" && !files["vendor/katex/katex.js"] {
			t.Error("the budget walk missed KaTeX: the import pattern no longer matches markdown.js")
		}
	}
}
