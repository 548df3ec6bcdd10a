package web

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
)

// contentSecurityPolicy allows nothing inline but styles (KaTeX and the
// job UI set style attributes) and nothing from another origin: user, model
// and note text can never run as script.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// csrfHeader carries the session's CSRF token on every write.
const csrfHeader = "X-CSRF-Token"

// mux registers every route of the table through chain; nothing is
// registered any other way.
func (s *Server) mux() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.Handle(rt.Pattern, s.chain(rt))
	}
	// Unknown paths still get the security headers.
	return securityHeaders(mux)
}

// chain wraps a route's handler in the middleware every route passes, in
// order: panic recovery, the route's body limit, the login check for its
// access level, the CSRF check on writes, then more time for an upload.
func (s *Server) chain(rt Route) http.Handler {
	h := rt.Handler
	limit := bodyLimit(rt.Pattern)
	return s.recoverPanics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !limitBody(w, r, limit) {
			return
		}
		access := rt.Access
		if access == Metrics {
			access = Login
			if s.opts.MetricsPublic {
				access = Open
			}
		}
		if access == Open {
			h.ServeHTTP(w, r)
			return
		}
		sess, ok := s.session(w, r)
		if !ok {
			if access == Page {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			writeError(w, http.StatusUnauthorized, "ログインしてください。")
			return
		}
		if isWrite(r.Method) && !validCSRF(r.Header.Get(csrfHeader), sess.CSRFToken) {
			writeError(w, http.StatusForbidden, "CSRF トークンがありません。ページを読み込み直してください。")
			return
		}
		if limit > maxBody {
			s.allowUpload(w, r)
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, sess)))
	}))
}

func isWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

func validCSRF(got, want string) bool {
	return got != "" && want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// securityHeaders sets the headers every answer carries.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// recoverPanics turns a panicking handler into a 500 and one log line; the
// server goes on.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil || p == http.ErrAbortHandler {
				if p != nil {
					panic(p)
				}
				return
			}
			s.opts.Logger.Error("http handler panic", "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(p), "stack", strings.TrimSpace(string(debug.Stack())))
			writeError(w, http.StatusInternalServerError, "サーバーでエラーが起きました。")
		}()
		next.ServeHTTP(w, r)
	})
}
