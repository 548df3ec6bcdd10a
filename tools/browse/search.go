package browse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Result is one web search hit, shaped as the model knows it.
type Result struct {
	Title string `json:"title"`
	Href  string `json:"href"`
	Body  string `json:"body"`
}

// Searcher runs a web search.
type Searcher interface {
	Search(ctx context.Context, query string, max int) ([]Result, error)
}

// Base URLs of the search backends.
const (
	DuckDuckGoURL = "https://html.duckduckgo.com/html/"
	TavilyURL     = "https://api.tavily.com/search"
)

// SearchOptions selects and configures a search backend.
type SearchOptions struct {
	// Backend is SEARCH_BACKEND: "duckduckgo" (default), "searxng" or "tavily".
	Backend string
	// BaseURL overrides the backend's URL; for searxng it is SEARXNG_URL
	// and required.
	BaseURL string
	// APIKey is TAVILY_API_KEY.
	APIKey string
	// Client talks to the backend, which the operator chose, so it is an
	// ordinary client (a SearXNG on the LAN must be reachable). Default: a
	// client with a 20 s timeout.
	Client *http.Client
	// UserAgent is sent to the backend.
	UserAgent string
}

// NewSearcher returns the backend opts names.
func NewSearcher(opts SearchOptions) (Searcher, error) {
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 20 * time.Second}
	}
	switch strings.ToLower(opts.Backend) {
	case "", "duckduckgo":
		return &DuckDuckGo{Client: opts.Client, BaseURL: or(opts.BaseURL, DuckDuckGoURL), UserAgent: opts.UserAgent}, nil
	case "searxng":
		if opts.BaseURL == "" {
			return nil, fmt.Errorf("new searcher: SEARXNG_URL is required for the searxng backend")
		}
		return &SearXNG{Client: opts.Client, BaseURL: opts.BaseURL, UserAgent: opts.UserAgent}, nil
	case "tavily":
		if opts.APIKey == "" {
			return nil, fmt.Errorf("new searcher: TAVILY_API_KEY is required for the tavily backend")
		}
		return &Tavily{Client: opts.Client, BaseURL: or(opts.BaseURL, TavilyURL), APIKey: opts.APIKey}, nil
	}
	return nil, fmt.Errorf("new searcher: unknown SEARCH_BACKEND %q (duckduckgo, searxng, tavily)", opts.Backend)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// DuckDuckGo searches through DuckDuckGo's HTML endpoint, which needs no key.
type DuckDuckGo struct {
	Client    *http.Client
	BaseURL   string
	UserAgent string
}

// Search posts the query and parses the result page.
func (d *DuckDuckGo) Search(ctx context.Context, query string, max int) ([]Result, error) {
	form := url.Values{"q": {query}, "b": {""}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.BaseURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("duckduckgo search: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	setUA(req, d.UserAgent)
	body, err := send(d.Client, req)
	if err != nil {
		return nil, fmt.Errorf("duckduckgo search: %w", err)
	}
	res, err := parseDuckDuckGo(body, max)
	if err != nil {
		return nil, fmt.Errorf("duckduckgo search: %w", err)
	}
	return res, nil
}

// parseDuckDuckGo reads the results of an html.duckduckgo.com page: each
// organic result is a div.result holding a.result__a (title, link) and
// .result__snippet; ads (div.result--ad) are skipped.
func parseDuckDuckGo(page []byte, max int) ([]Result, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("parse result page: %w", err)
	}
	results := []Result{}
	seen := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if len(results) >= max {
			return
		}
		if n.Type == html.ElementNode && hasClass(n, "result") {
			if hasClass(n, "result--ad") {
				return
			}
			var r Result
			if a := findNode(n, func(c *html.Node) bool { return c.DataAtom == atom.A && hasClass(c, "result__a") }); a != nil {
				r.Title = collapseSpace(nodeText(a))
				r.Href = unwrapDuckDuckGo(attr(a, "href"))
			}
			if s := findNode(n, func(c *html.Node) bool { return hasClass(c, "result__snippet") }); s != nil {
				r.Body = collapseSpace(nodeText(s))
			}
			if r.Href != "" && !seen[r.Href] {
				seen[r.Href] = true
				results = append(results, r)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return results, nil
}

// unwrapDuckDuckGo turns //duckduckgo.com/l/?uddg=<target>&rut=… into the
// target; other links are returned absolute.
func unwrapDuckDuckGo(href string) string {
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Host, "duckduckgo.com") && strings.HasPrefix(u.Path, "/l/") {
		if t := u.Query().Get("uddg"); t != "" {
			return t
		}
	}
	if strings.HasSuffix(u.Host, "duckduckgo.com") && u.Path == "/y.js" {
		return "" // ad click-through
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

// SearXNG searches a SearXNG instance through its JSON API (the instance
// must have "json" among its search formats).
type SearXNG struct {
	Client    *http.Client
	BaseURL   string
	UserAgent string
}

// Search queries /search?q=…&format=json.
func (s *SearXNG) Search(ctx context.Context, query string, max int) ([]Result, error) {
	u := strings.TrimRight(s.BaseURL, "/") + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("searxng search: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	setUA(req, s.UserAgent)
	body, err := send(s.Client, req)
	if err != nil {
		return nil, fmt.Errorf("searxng search: %w", err)
	}
	results, err := jsonResults(body, max)
	if err != nil {
		return nil, fmt.Errorf("searxng search: %w", err)
	}
	return results, nil
}

// jsonResults decodes the reply shape SearXNG and Tavily share,
// {"results": [{"title", "url", "content"}]}, keeping at most max results
// that have a URL.
func jsonResults(body []byte, max int) ([]Result, error) {
	var reply struct {
		Results []struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		return nil, fmt.Errorf("decode reply: %w", err)
	}
	results := []Result{}
	for _, r := range reply.Results {
		if len(results) >= max {
			break
		}
		if r.URL == "" {
			continue
		}
		results = append(results, Result{Title: collapseSpace(r.Title), Href: r.URL, Body: collapseSpace(r.Content)})
	}
	return results, nil
}

// Tavily searches with the Tavily API.
type Tavily struct {
	Client  *http.Client
	BaseURL string
	APIKey  string
}

// Search posts the query to the Tavily search endpoint.
func (t *Tavily) Search(ctx context.Context, query string, max int) ([]Result, error) {
	payload, _ := json.Marshal(map[string]any{"query": query, "max_results": max})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.BaseURL, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("tavily search: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.APIKey)
	body, err := send(t.Client, req)
	if err != nil {
		return nil, fmt.Errorf("tavily search: %w", err)
	}
	results, err := jsonResults(body, max)
	if err != nil {
		return nil, fmt.Errorf("tavily search: %w", err)
	}
	return results, nil
}

func setUA(req *http.Request, ua string) {
	if ua != "" {
		req.Header.Set("User-Agent", ua)
	}
}

// send does req and returns the body of a 2xx reply (at most 5 MB).
func send(c *http.Client, req *http.Request) ([]byte, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 5<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &statusError{code: resp.StatusCode}
	}
	return body, nil
}

// Search runs web_search: results as a JSON list, "[]" for an empty query,
// and a short note instead of an error when the backend fails.
func (b *Browser) Search(ctx context.Context, query string, max int) string {
	query = strings.TrimSpace(query)
	if query == "" {
		return "[]"
	}
	if max <= 0 {
		max = 5
	}
	res, err := b.deps.Searcher.Search(ctx, query, max)
	if err != nil {
		return "Search failed: " + shortReason(err) + ". Try again later or rephrase the query."
	}
	if len(res) == 0 {
		return "[]"
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.Encode(res)
	return strings.TrimSpace(out.String())
}
