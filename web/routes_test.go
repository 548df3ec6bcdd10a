package web

import (
	"context"
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
	case "/login", "/api/login", "/healthz", "/readyz", "/favicon.ico":
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
	// The real pages, as serve registers them.
	ts := newTestServer(t, Options{Pages: PageRoutes()})
	routes := ts.routes()
	if len(routes) < len(screens)+40 {
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

// noJSONBody are the writes that read no request body; every other write
// decodes JSON and is walked by TestEveryJSONRouteRefusesBadBodies.
var noJSONBody = map[string]bool{
	"POST /api/logout":                             true,
	"POST /api/knowledge-base/sync":                true,
	"POST /api/system/backfill-tags":               true,
	"POST /api/reminders/{id}/cancel":              true,
	"POST /api/reminders/{id}/pause":               true,
	"POST /api/reminders/{id}/resume":              true,
	"POST /api/reminders/{id}/test":                true,
	"POST /api/notes/{id}/revisions/{rev}/restore": true,

	"POST /chat/sessions/{id}/stop": true,
}

// wrongType is, for each JSON write, a body whose named field has the
// wrong type.
var wrongType = map[string]struct{ body, field string }{
	"POST /api/login":                         {`{"password": 1}`, "password"},
	"POST /chat/sessions":                     {`{"title": 5}`, "title"},
	"POST /chat/sessions/import":              {`{"format": "yorozu-chat/1", "messages": {}}`, "messages"},
	"PUT /chat/sessions/{id}/notes":           {`{"page_ids": "1"}`, "page_ids"},
	"POST /chat/stream":                       {`{"message": true}`, "message"},
	"POST /api/notes":                         {`{"title": "x", "section": 3}`, "section"},
	"PATCH /api/notes/{id}":                   {`{"content": false}`, "content"},
	"POST /api/notes/sections/rename":         {`{"from": "a", "to": ["b"]}`, "to"},
	"POST /api/notes/reorder":                 {`{"page_id": "1", "order": [1]}`, "page_id"},
	"PUT /api/settings":                       {`{"default_model": 3}`, "default_model"},
	"POST /api/reminders":                     {`{"when": 7}`, "when"},
	"POST /api/reminders/preview":             {`{"when": ["毎朝"]}`, "when"},
	"PUT /api/reminders/{id}":                 {`{"content": 1}`, "content"},
	"POST /api/models/presets":                {`{"label": "a", "model": {}}`, "model"},
	"PUT /api/channels/{id}":                  {`{"persona": 5}`, "persona"},
	"PUT /api/channel-logs/{guild}/{channel}": {`{"on": "yes"}`, "on"},
	"PUT /api/servers/{id}":                   {`{"model": ["qwen3"]}`, "model"},

	"PATCH /chat/sessions/{id}":         {`{"title": 5}`, "title"},
	"POST /chat/sessions/{id}/branches": {`{"anchor_id": 0, "position": "1"}`, "position"},
}

// TestEveryJSONRouteRefusesBadBodies walks every write that reads JSON:
// broken JSON, the wrong content type and a field of the wrong type are
// each refused with a message (400 naming the field for the last), and
// nothing was written. A new JSON route must be listed in wrongType.
func TestEveryJSONRouteRefusesBadBodies(t *testing.T) {
	a := newAPI(t)
	c := a.c
	// Something for {id} to name: conversation 1 and note 1.
	var sess idResponse
	var note noteJSON
	if c.call("POST", "/chat/sessions", nil, &sess) != http.StatusCreated || c.call("POST", "/api/notes", map[string]string{"title": "メモ"}, &note) != http.StatusCreated {
		t.Fatal("setup failed")
	}
	if sess.ID != 1 || note.ID != 1 {
		t.Fatalf("setup made conversation %d and note %d, want 1 and 1", sess.ID, note.ID)
	}
	count := func() (n int) {
		err := a.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM note_pages)
			+ (SELECT count(*) FROM model_presets) + (SELECT count(*) FROM app_settings) + (SELECT count(*) FROM messages)`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	seen := map[string]bool{}
	for _, rt := range a.routes() {
		method, path, ok := strings.Cut(rt.Pattern, " ")
		if !ok || !isWrite(method) || method == http.MethodDelete || noJSONBody[rt.Pattern] {
			continue
		}
		seen[rt.Pattern] = true
		wrong, listed := wrongType[rt.Pattern]
		if !listed {
			t.Errorf("%s reads a body but has no wrong-type case in wrongType (or list it in noJSONBody)", rt.Pattern)
			continue
		}
		path = examplePath(path)
		t.Run(rt.Pattern, func(t *testing.T) {
			if code, e := c.callErr(method, path, `{"title": "x",`); code != http.StatusBadRequest || e.Error == "" {
				t.Errorf("broken JSON = %d %+v, want 400 with a message", code, e)
			}
			req, _ := http.NewRequest(method, a.base+path, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "text/plain")
			req.Header.Set(csrfHeader, c.csrf)
			if resp, err := c.http.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
				t.Errorf("text/plain = %v %v, want 415", resp.StatusCode, err)
			} else {
				resp.Body.Close()
			}
			if code, e := c.callErr(method, path, wrong.body); code != http.StatusBadRequest || e.Field != wrong.field || !strings.HasPrefix(e.Error, wrong.field+": ") {
				t.Errorf("%s = %d %+v, want 400 naming %s", wrong.body, code, e, wrong.field)
			}
		})
	}
	for p := range wrongType {
		if !seen[p] {
			t.Errorf("wrongType lists %s, which is no JSON route", p)
		}
	}
	if after := count(); after != before {
		t.Errorf("refused requests wrote %d rows", after-before)
	}
}

// TestEveryRouteWithAnIDAnswers404 walks every route whose path names a
// row: an id that does not exist is 404 (never 500, never 200 with
// nothing), whatever the method.
func TestEveryRouteWithAnIDAnswers404(t *testing.T) {
	a := newAPI(t)
	n := 0
	for _, rt := range a.routes() {
		method, path, ok := strings.Cut(rt.Pattern, " ")
		if !ok || !strings.Contains(path, "{") {
			continue
		}
		n++
		path = wildcard.ReplaceAllString(path, "999999")
		var body any
		if isWrite(method) && !noJSONBody[rt.Pattern] && method != http.MethodDelete {
			body = map[string]any{}
		}
		t.Run(rt.Pattern, func(t *testing.T) {
			if code, e := a.c.callErr(method, path, body); code != http.StatusNotFound || e.Error == "" {
				t.Errorf("= %d %+v, want 404 with a message", code, e)
			}
			if code, _ := a.c.callErr(method, wildcard.ReplaceAllString(rt.Pattern[len(method)+1:], "abc"), body); code != http.StatusNotFound {
				t.Errorf("a non-numeric id = %d, want 404", code)
			}
		})
	}
	if n < 15 {
		t.Errorf("only %d routes with an id walked", n)
	}
}
