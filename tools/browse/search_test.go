package browse

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/tools/fetch"
)

func backend(t *testing.T, check func(r *http.Request), status int, file string) *httptest.Server {
	t.Helper()
	var body []byte
	if file != "" {
		var err error
		if body, err = os.ReadFile(filepath.Join("testdata", file)); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		check(r)
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSearchBackends(t *testing.T) {
	want := []Result{
		{"Tutorial: Getting started with generics - The Go Programming Language", "https://go.dev/doc/tutorial/generics",
			"This tutorial introduces the basics of generics in Go. With generics, you can declare and use functions or types that are written to work with any of a set of types provided by calling code."},
		{"An Introduction To Generics - The Go Programming Language", "https://go.dev/blog/intro-generics",
			"The Go 1.18 release adds support for generics. Generics are the biggest change we've made to Go since the first open source release."},
	}
	ddg := backend(t, func(r *http.Request) {
		if r.Method != http.MethodPost || r.FormValue("q") != "golang generics" {
			t.Errorf("duckduckgo got %s q=%q", r.Method, r.FormValue("q"))
		}
	}, 200, "duckduckgo.html")
	sx := backend(t, func(r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("q") != "golang generics" || r.URL.Query().Get("format") != "json" {
			t.Errorf("searxng got %s", r.URL)
		}
	}, 200, "searxng.json")
	tv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query      string `json:"query"`
			MaxResults int    `json:"max_results"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if r.Header.Get("Authorization") != "Bearer tvly-key" || req.Query != "golang generics" || req.MaxResults != 2 {
			t.Errorf("tavily got %v %+v", r.Header, req)
		}
		io.WriteString(w, `{"query":"golang generics","follow_up_questions":null,"answer":null,"images":[],"results":[
{"title":"`+want[0].Title+`","url":"`+want[0].Href+`","content":"`+want[0].Body+`","score":0.98,"raw_content":null},
{"title":"`+want[1].Title+`","url":"`+want[1].Href+`","content":"The Go 1.18 release adds support for generics.\nGenerics are the biggest change we've made to Go since the first open source release.","score":0.9,"raw_content":null}],"response_time":1.02}`)
	}))
	t.Cleanup(tv.Close)

	for _, tc := range []struct {
		name string
		opts SearchOptions
	}{
		{"duckduckgo", SearchOptions{BaseURL: ddg.URL + "/html/"}},
		{"searxng", SearchOptions{Backend: "searxng", BaseURL: sx.URL + "/"}},
		{"tavily", SearchOptions{Backend: "tavily", BaseURL: tv.URL, APIKey: "tvly-key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSearcher(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Search(t.Context(), "golang generics", 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
				t.Errorf("results:\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestDuckDuckGoParse(t *testing.T) {
	page, _ := os.ReadFile("testdata/duckduckgo.html")
	got, err := parseDuckDuckGo(page, 10)
	if err != nil {
		t.Fatal(err)
	}
	hrefs := make([]string, len(got))
	for i, r := range got {
		hrefs[i] = r.Href
	}
	want := []string{
		"https://go.dev/doc/tutorial/generics",
		"https://go.dev/blog/intro-generics",
		"https://zenn.dev/example/articles/go-generics?ref=ddg&lang=ja",
		"https://pkg.go.dev/golang.org/x/exp/constraints",
	}
	if strings.Join(hrefs, " ") != strings.Join(want, " ") {
		t.Errorf("hrefs = %q, want %q (ad skipped, redirects unwrapped)", hrefs, want)
	}
	if got[2].Title != "Goのジェネリクス入門 & 実践" {
		t.Errorf("title = %q", got[2].Title)
	}
}

func TestSearchTool(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	e.search.results = []Result{{Title: "A <b>&", Href: "https://a.example/", Body: "x"}}
	if got := e.b.Search(t.Context(), "  ", 5); got != "[]" {
		t.Errorf("empty query = %q", got)
	}
	if got := e.b.Search(t.Context(), "a", 5); got != `[{"title":"A <b>&","href":"https://a.example/","body":"x"}]` {
		t.Errorf("Search = %q", got)
	}
	e.search.results = nil
	if got := e.b.Search(t.Context(), "nothing", 5); got != "[]" {
		t.Errorf("no results = %q", got)
	}
	e.search.err = errors.New("duckduckgo search: connection refused")
	if got := e.b.Search(t.Context(), "a", 5); !strings.HasPrefix(got, "Search failed: ") {
		t.Errorf("failure = %q", got)
	}
	down := backend(t, func(*http.Request) {}, 503, "")
	s, _ := NewSearcher(SearchOptions{Backend: "searxng", BaseURL: down.URL})
	b, _ := NewBrowser(Deps{Fetcher: http.DefaultClient, Searcher: s, Signer: e.signer})
	if got, want := b.Search(t.Context(), "a", 5), "Search failed: HTTP 503 Service Unavailable. Try again later or rephrase the query."; got != want {
		t.Errorf("503 = %q, want %q", got, want)
	}
}

func TestNewSearcherConfigErrors(t *testing.T) {
	for _, o := range []SearchOptions{{Backend: "searxng"}, {Backend: "tavily"}, {Backend: "bing"}} {
		if _, err := NewSearcher(o); err == nil {
			t.Errorf("NewSearcher(%+v) accepted", o)
		}
	}
}
