package browse

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/page/pagetest"
)

func TestSearchAndFetchChain(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	e.search.results = []Result{
		{Title: "Missing", Href: e.url("/gone.pdf")},
		{Title: "年次報告書", Href: e.url("/doc.pdf")},
		{Title: "Internal", Href: "http://10.0.0.8/secret.pdf"},
		{Title: "Fake PDF", Href: e.url("/utf8.html")},
		{Title: "Thirty", Href: e.url("/thirty.pdf")},
	}
	req := FilesRequest{Query: "annual report", FileType: ".PDF", MaxResults: 5, MaxChars: 1500, Session: "discord:1"}
	parts := walk(t, e.b.SearchAndFetch(t.Context(), req), func(tok string) string {
		r := req
		r.Token = tok
		return e.b.SearchAndFetch(t.Context(), r)
	})
	if len(e.search.queries) != 1 || e.search.queries[0] != "annual report filetype:pdf" {
		t.Errorf("queries = %q, want one search for the first call only", e.search.queries)
	}
	first := parts[0]
	for _, want := range []string{
		"Skipped " + e.url("/gone.pdf") + ": HTTP 404 Not Found\n\n",
		"URL: " + e.url("/doc.pdf") + "\nTitle: 年次報告書\nType: pdf\nSize: ",
		"\nCharacters: ", "\nPages: 4\n\n[Page 1/4]\np01 l01",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("first part lacks %q:\n%s", want, first)
		}
	}
	all := strings.Join(parts, "\n")
	for _, want := range []string{
		"Skipped http://10.0.0.8/secret.pdf: blocked URL (non-public address 10.0.0.8)",
		"Skipped " + e.url("/utf8.html") + ": not a PDF file",
		"URL: " + e.url("/thirty.pdf"),
		"p30 l02",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("chain lacks %q", want)
		}
	}
	for i, p := range parts {
		if strings.Count(p, "URL: ") > 1 {
			t.Errorf("part %d holds more than one file:\n%s", i, p)
		}
	}
	for _, line := range []string{"p04 l12", "p01 l01", "p17 l01", "p30 l02"} {
		if n := strings.Count(all, line); line != "p01 l01" && line != "p30 l02" && line != "p17 l01" && n != 1 || n < 1 {
			t.Errorf("%q appears %d times", line, n)
		}
	}

	t.Run("token bound to the session", func(t *testing.T) {
		_, _, tok := pagetest.ParseFooter(e.b.SearchAndFetch(t.Context(), req))
		r := req
		r.Token, r.Session = tok, "discord:2"
		if got, want := e.b.SearchAndFetch(t.Context(), r), "Invalid continuation token: token belongs to another conversation"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestSearchAndFetchText(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	e.search.results = []Result{{Title: "Binary", Href: e.url("/blob.bin")}, {Title: "Cities", Href: e.url("/data.csv")}}
	got := e.b.SearchAndFetch(t.Context(), FilesRequest{Query: "population", FileType: "csv"})
	want := "Skipped " + e.url("/blob.bin") + ": not a text file\n\nURL: " + e.url("/data.csv") +
		"\nTitle: Cities\nType: csv\nSize: 47 bytes\nCharacters: 39\n\ncity,population\n東京,13960000\n大阪,2750000"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := e.b.SearchAndFetch(t.Context(), FilesRequest{Query: "x", FileType: "p d f"}); got != "Invalid file type." {
		t.Errorf("bad type = %q", got)
	}
	if got := e.b.SearchAndFetch(t.Context(), FilesRequest{Query: " ", FileType: "pdf"}); got != "[]" {
		t.Errorf("empty query = %q", got)
	}
}

// TestToolsThroughRegistry calls the tools as the pipeline does: JSON
// arguments through a Registry whose hook injects the session id.
func TestToolsThroughRegistry(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	e.search.results = []Result{{Title: "Doc", Href: e.url("/doc.pdf")}}
	reg := tools.NewRegistry()
	if err := Register(reg, Deps{Fetcher: mustClient(t), Searcher: e.search, Signer: e.signer}); err != nil {
		t.Fatal(err)
	}
	reg.Before(tools.InjectCaller("session_id", func(c tools.Caller) string { return c.Session }))
	if got := strings.Join(reg.Names(), ","); got != "pdf_to_text,scrape_url,search_and_fetch,web_search" {
		t.Errorf("names = %s", got)
	}
	for _, d := range reg.Definitions() {
		if _, ok := d.Function.Parameters.Properties.Get("session_id"); ok {
			t.Errorf("%s shows session_id to the model", d.Function.Name)
		}
	}
	ctx := tools.WithCaller(t.Context(), tools.Caller{Session: "discord:42"})
	call := func(ctx context.Context, name string, args any) string {
		raw, _ := json.Marshal(args)
		out, err := reg.Call(ctx, name, raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	}
	if got := call(ctx, "web_search", map[string]any{"query": ""}); got != "[]" {
		t.Errorf("web_search = %q", got)
	}
	out := call(ctx, "scrape_url", map[string]any{"url": e.url("/long.html")})
	if n := utf8.RuneCountInString(out); n > 4000+300 || !strings.Contains(out, "next_token: ") {
		t.Errorf("scrape_url default max_chars not applied: %d runes", n)
	}
	out = call(ctx, "search_and_fetch", map[string]any{"query": "doc", "file_type": "pdf", "max_chars": 500, "session_id": "discord:evil"})
	_, more, tok := pagetest.ParseFooter(out)
	if !more {
		t.Fatalf("search_and_fetch not paged:\n%s", out)
	}
	// The model's own session_id was dropped and the caller's injected, so
	// the token works in this conversation and not in another.
	next := call(ctx, "search_and_fetch", map[string]any{"query": "doc", "file_type": "pdf", "continue_from": tok})
	if !strings.Contains(next, "[Page ") {
		t.Errorf("continuation failed: %s", next)
	}
	other := tools.WithCaller(t.Context(), tools.Caller{Session: "discord:evil"})
	if got := call(other, "search_and_fetch", map[string]any{"query": "doc", "file_type": "pdf", "continue_from": tok}); !strings.HasPrefix(got, "Invalid continuation token:") {
		t.Errorf("token crossed conversations: %s", got)
	}
}

func mustClient(t *testing.T) Fetcher {
	c, err := fetch.New(fetch.Options{Allowlist: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTrimmingKeepsFooter runs real paged outputs through the pipeline's
// trimming: the footer must survive whole and its token must still work.
func TestTrimmingKeepsFooter(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	e.search.results = []Result{{Title: "Doc", Href: e.url("/thirty.pdf")}}
	for _, tc := range []struct {
		name, tool string
		out        string
	}{
		{"pdf_to_text", "pdf_to_text", e.b.PDF(t.Context(), e.url("/thirty.pdf"), 30000, "")},
		{"scrape_url", "scrape_url", e.b.Scrape(t.Context(), e.url("/long.html"), 5000, "")},
		{"search_and_fetch", "search_and_fetch", e.b.SearchAndFetch(t.Context(), FilesRequest{Query: "q", FileType: "pdf", MaxChars: 30000})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trimmed := llm.TrimResult(tc.out, 1000)
			_, more, tok := pagetest.ParseFooter(trimmed)
			if !more || tok == "" {
				t.Fatalf("footer lost:\n%s", trimmed[max(0, len(trimmed)-300):])
			}
			if err := e.signer.Verify(tc.tool, tok, nil); err != nil {
				t.Errorf("token damaged: %v", err)
			}
		})
	}
}
