package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// River's UI page gets the script that adds the CSRF token to its writes;
// its API answers and its writes pass through as they are.
func TestJobsUIGetsTheCSRFScript(t *testing.T) {
	const page = `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>River</title></head><body><div id="root"></div></body></html>`
	var posted string
	river := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost:
			b, _ := io.ReadAll(r.Body)
			posted = string(b)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"message":"ok"}`)
		case strings.HasPrefix(r.URL.Path, "/jobs/api/"):
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jobs":[]}`)
		case r.Header.Get("If-Modified-Since") != "":
			w.WriteHeader(http.StatusNotModified)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(page)))
			_, _ = io.WriteString(w, page)
		}
	})
	ts := newTestServer(t, Options{Deps: Deps{Jobs: river}})
	c := ts.quickSession(t)

	for _, path := range []string{"/jobs/", "/jobs/jobs?state=running"} {
		req, _ := http.NewRequest("GET", ts.base+path, nil)
		req.Header.Set("If-Modified-Since", "Mon, 02 Jan 2006 15:04:05 GMT")
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := strings.Replace(page, "<head>", "<head>"+jobsScript, 1)
		if resp.StatusCode != http.StatusOK || string(body) != want || resp.Header.Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Errorf("GET %s = %d %q (length %s), want the page with the script first in its head", path, resp.StatusCode, body, resp.Header.Get("Content-Length"))
		}
	}
	resp := c.do("GET", "/jobs/api/jobs", nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"jobs":[]}` {
		t.Errorf("the API answer was changed: %q", body)
	}
	if code := c.call("POST", "/jobs/api/jobs/retry", map[string]any{"job_ids": []string{"1"}}, nil); code != http.StatusOK || posted != `{"job_ids":["1"]}` {
		t.Errorf("a write with the CSRF header = %d, River got %q", code, posted)
	}
	static := pageRoutes(t)["GET /static/"].Handler
	if rec := serve(static, httptest.NewRequest("GET", "/static/js/jobs-csrf.js", nil)); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "X-CSRF-Token") {
		t.Errorf("jobs-csrf.js: %d", rec.Code)
	}
}
