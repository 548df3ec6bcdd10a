package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

// ui holds the admin page: one template per screen on a shared layout, and
// the static files (CSS, JS modules, the vendored libraries of
// ui/static/vendor, updated with ui/vendor.sh).
//
//go:embed ui/templates ui/static
var ui embed.FS

// screen is one page of the admin UI.
type screen struct {
	Name  string // template and JS module name
	Href  string // its path; also the nav link
	Label string // nav label and page title
}

// screens are the pages, in nav order. The job UI is River's own, linked
// from the nav.
var screens = []screen{
	{"chat", "/", "チャット"},
	{"notes", "/notes", "ノート"},
	{"memory", "/memory", "記憶"},
	{"kb", "/knowledge-base", "ナレッジベース"},
	{"logs", "/logs", "ログ"},
	{"settings", "/settings", "設定"},
	{"reminders", "/reminders", "予定"},
	{"channels", "/channels", "チャンネル"},
}

// navItem is a link of the menu; Note, when set, says what a person finds
// behind it that differs from the rest (River's job screen is in English).
type navItem struct{ Screen, Href, Label, Note string }

type pageData struct {
	Screen, Title string
	Nav           []navItem
}

// PageRoutes are the admin page's screens (behind the login: a visitor
// without a session is sent to /login), the login page and the static files
// (open: the login page needs them, and they hold nothing private).
// They go into Options.Pages. Each template is parsed on the first request
// for its page, so a start parses none. The files are embedded, so a
// template that does not parse is a bug caught by the tests; it panics.
func PageRoutes() []Route {
	nav := make([]navItem, 0, len(screens)+1)
	for _, s := range screens {
		nav = append(nav, navItem{Screen: s.Name, Href: s.Href, Label: s.Label})
	}
	nav = append(nav, navItem{Screen: "jobs", Href: "/jobs/", Label: "ジョブ", Note: "英語の画面"})

	layout := sync.OnceValue(func() *template.Template {
		return template.Must(template.ParseFS(ui, "ui/templates/layout.html"))
	})
	login := sync.OnceValue(func() *template.Template {
		return template.Must(template.ParseFS(ui, "ui/templates/login.html"))
	})
	static, err := newStaticFiles(ui, "ui/static")
	if err != nil {
		panic(err)
	}
	routes := []Route{
		{"GET /login", Open, renderPage(login, "page", nil)},
		{"GET /static/", Open, http.StripPrefix("/static/", static)},
		// Browsers and River's UI ask for it at the root.
		{"GET /favicon.ico", Open, http.RedirectHandler("/static/favicon.svg", http.StatusMovedPermanently)},
	}
	for _, s := range screens {
		page := sync.OnceValue(func() *template.Template {
			return template.Must(template.Must(layout().Clone()).ParseFS(ui, "ui/templates/"+s.Name+".html"))
		})
		pattern := "GET " + s.Href
		if s.Href == "/" {
			pattern = "GET /{$}"
		}
		routes = append(routes, Route{pattern, Page, renderPage(page, "layout", pageData{Screen: s.Name, Title: s.Label, Nav: nav})})
	}
	return routes
}

// renderPage executes the template once per request into a buffer, so a
// failure is a clean 500 rather than half a page.
func renderPage(t func() *template.Template, name string, data any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if err := t().ExecuteTemplate(&buf, name, data); err != nil {
			http.Error(w, "page template failed", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		_, _ = w.Write(buf.Bytes())
	})
}

// staticFile is one embedded file. Its body, ETag and gzipped copy are
// made on the first request for it: a process that nobody opens the admin
// page of keeps none of them (about 2 MB of start-up work and heap).
type staticFile struct {
	fsys  fs.FS
	name  string // path in fsys
	ctype string

	once     sync.Once
	body, gz []byte // gz is nil when gzip does not make the file smaller
	etag     string
	err      error
}

// staticFiles serves the embedded files. Browsers revalidate each (no-cache
// with an ETag), so a new binary's files are picked up at once, and an
// unchanged file costs a 304.
type staticFiles map[string]*staticFile

// newStaticFiles lists the files under root; nothing is read yet.
func newStaticFiles(fsys fs.FS, root string) (staticFiles, error) {
	files := staticFiles{}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files[strings.TrimPrefix(p, root+"/")] = &staticFile{fsys: fsys, name: p, ctype: contentType(p)}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list embedded static files: %w", err)
	}
	return files, nil
}

// gzipWriters are reused across files: each new writer at BestCompression
// is about 800 KB.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestCompression)
	return zw
}}

// load reads the file and makes its ETag and gzipped copy, once.
func (f *staticFile) load() error {
	f.once.Do(func() {
		body, err := fs.ReadFile(f.fsys, f.name)
		if err != nil {
			f.err = fmt.Errorf("read embedded %s: %w", f.name, err)
			return
		}
		sum := sha256.Sum256(body)
		f.body, f.etag = body, `"`+hex.EncodeToString(sum[:12])+`"`
		if !compressible(f.ctype) {
			return
		}
		var buf bytes.Buffer
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(&buf)
		_, _ = zw.Write(body)
		_ = zw.Close()
		gzipWriters.Put(zw)
		if buf.Len() < len(body) {
			f.gz = buf.Bytes()
		}
	})
	return f.err
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".woff2":
		return "font/woff2"
	case "", ".LICENSE":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "application/octet-stream"
}

func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "json") || strings.Contains(ctype, "svg")
}

func (sf staticFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := sf[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if err := f.load(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	body, etag := f.body, f.etag
	if f.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body, etag = f.gz, strings.TrimSuffix(f.etag, `"`)+`-gz"`
	}
	h.Set("Content-Type", f.ctype)
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}
