package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var wildcard = regexp.MustCompile(`\{[^}]+\}`)

// examplePath turns a pattern's path into one it matches.
func examplePath(path string) string {
	return wildcard.ReplaceAllStringFunc(path, func(w string) string {
		if strings.HasSuffix(w, "...}") {
			return "x"
		}
		return "1"
	})
}

// openPath lists what may be served without a login.
func openPath(path string) bool {
	switch path {
	case "/login", "/api/login", "/healthz", "/readyz":
		return true
	}
	return strings.HasPrefix(path, "/static/") || strings.HasPrefix(path, "/assets/")
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestEveryRouteNeedsLoginAndCSRF walks the whole route table: each route
// refuses a caller without a session (401, or a redirect to /login for
// pages), refuses a write without the CSRF header (403), and lets a logged-in
// caller with the header through. A new route cannot forget either rule.
func TestEveryRouteNeedsLoginAndCSRF(t *testing.T) {
	ts := newTestServer(t, Options{Pages: []Route{
		{"GET /{$}", Page, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("home")) })},
	}})
	routes := ts.Routes()
	if len(routes) < 5 {
		t.Fatalf("only %d routes", len(routes))
	}
	for _, rt := range routes {
		method, path, hasMethod := strings.Cut(rt.Pattern, " ")
		methods := []string{method}
		if !hasMethod {
			path, methods = rt.Pattern, []string{"GET", "POST"}
		}
		path = examplePath(strings.TrimSuffix(path, "{$}"))
		for _, m := range methods {
			t.Run(m+" "+path, func(t *testing.T) {
				if rt.Access == Open {
					if !openPath(strings.TrimSuffix(path, "x")) {
						t.Fatalf("%s is open without a login", rt.Pattern)
					}
					return
				}
				anon := ts.anonymous(t)
				resp := anon.do(m, path, nil)
				resp.Body.Close()
				switch rt.Access {
				case Page:
					if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
						t.Errorf("logged out: %d %q, want a redirect to /login", resp.StatusCode, resp.Header.Get("Location"))
					}
				default:
					if resp.StatusCode != http.StatusUnauthorized {
						t.Errorf("logged out: %d, want 401", resp.StatusCode)
					}
				}

				c := ts.quickSession(t)
				if isWrite(m) {
					token := c.csrf
					for _, bad := range []string{"", "forged"} {
						c.csrf = bad
						resp := c.do(m, path, nil)
						resp.Body.Close()
						if resp.StatusCode != http.StatusForbidden {
							t.Errorf("CSRF header %q: %d, want 403", bad, resp.StatusCode)
						}
					}
					c.csrf = token
				}
				resp = c.do(m, path, nil)
				resp.Body.Close()
				if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusSeeOther {
					t.Errorf("logged in with the CSRF header: %d", resp.StatusCode)
				}
			})
		}
	}
}

func TestSecurityHeadersOnEveryAnswer(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, path := range []string{"/healthz", "/api/me", "/nope"} {
		resp := ts.anonymous(t).do("GET", path, nil)
		resp.Body.Close()
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline'; img") && strings.Contains(csp, "script-src 'self' 'unsafe-inline'") ||
			!strings.Contains(csp, "frame-ancestors 'none'") || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "same-origin" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
}

func TestMetricsNeedLoginUnlessPublic(t *testing.T) {
	for _, public := range []bool{false, true} {
		ts := newTestServer(t, Options{MetricsPublic: public, Metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("yorozu_llm_queue_length 0\n"))
		})})
		code := ts.anonymous(t).call("GET", "/metrics", nil, nil)
		want := http.StatusUnauthorized
		if public {
			want = http.StatusOK
		}
		if code != want {
			t.Errorf("METRICS_PUBLIC=%v: /metrics logged out = %d, want %d", public, code, want)
		}
	}
}
