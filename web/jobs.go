package web

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// jobsScript is put first into the <head> of River's UI page. The UI makes
// its own requests, and every write to this server needs the login's CSRF
// token; the script (ui/static/js/jobs-csrf.js) adds it to the UI's writes.
const jobsScript = `<script src="/static/js/jobs-csrf.js"></script>`

// withCSRFScript serves River's UI with jobsScript in its HTML pages; every
// other answer (its API, its assets) passes through untouched.
func withCSRFScript(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		// A page the browser kept from before would lack the script: the
		// HTML is always sent whole.
		r = r.Clone(r.Context())
		r.Header.Del("If-Modified-Since")
		r.Header.Del("If-None-Match")
		r.Header.Del("Range")
		hw := &htmlWriter{ResponseWriter: w}
		next.ServeHTTP(hw, r)
		hw.finish()
	})
}

// htmlWriter holds back a 200 text/html answer to put jobsScript into it;
// anything else is written through as it comes.
type htmlWriter struct {
	http.ResponseWriter
	decided bool
	hold    bool
	buf     bytes.Buffer
}

func (h *htmlWriter) WriteHeader(code int) {
	if h.decided {
		return
	}
	h.decided = true
	hd := h.Header()
	h.hold = code == http.StatusOK && strings.HasPrefix(hd.Get("Content-Type"), "text/html") && hd.Get("Content-Encoding") == ""
	if !h.hold {
		h.ResponseWriter.WriteHeader(code)
	}
}

func (h *htmlWriter) Write(p []byte) (int, error) {
	if !h.decided {
		if h.Header().Get("Content-Type") == "" {
			h.Header().Set("Content-Type", http.DetectContentType(p))
		}
		h.WriteHeader(http.StatusOK)
	}
	if h.hold {
		return h.buf.Write(p)
	}
	return h.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (River's UI
// flushes nothing of its HTML, but its API may).
func (h *htmlWriter) Unwrap() http.ResponseWriter { return h.ResponseWriter }

func (h *htmlWriter) finish() {
	if !h.hold {
		return
	}
	page := h.buf.Bytes()
	if i := bytes.Index(bytes.ToLower(page), []byte("<head>")); i >= 0 {
		at := i + len("<head>")
		page = append(append(append([]byte{}, page[:at]...), jobsScript...), page[at:]...)
	}
	h.Header().Set("Content-Length", strconv.Itoa(len(page)))
	h.Header().Del("Last-Modified")
	h.Header().Set("Cache-Control", "no-store")
	h.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = h.ResponseWriter.Write(page)
}
