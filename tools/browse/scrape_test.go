package browse

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/tools/page"
	"github.com/yorozu-bot/yorozu/tools/page/pagetest"
)

func TestScrapeJapaneseCharsets(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	for _, path := range []string{"/sjis.html", "/eucjp.html", "/sjis-header.html"} {
		t.Run(path, func(t *testing.T) {
			got := e.b.Scrape(t.Context(), e.url(path), 4000, "")
			for _, want := range []string{
				"Title: 吾輩は猫である - 青空文庫",
				"吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。",
				"ただ彼の掌に載せられてスーと持ち上げられた時何だかフワフワした感じがあったばかりである。",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("result lacks %q:\n%s", want, got)
				}
			}
			for _, unwanted := range []string{"スクリプト", "フッター", "作品一覧", "関連作品", "\uFFFD", "\n\n\n"} {
				if strings.Contains(got, unwanted) {
					t.Errorf("result contains %q:\n%s", unwanted, got)
				}
			}
		})
	}
}

func TestScrapeMainText(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	for _, tc := range []struct {
		path           string
		want, unwanted []string
	}{
		{
			path: "/utf8.html",
			want: []string{"Title: Gophers in the Wild", "Pocket gophers spend almost their entire lives underground",
				"Farmers, however, tend to see them as pests"},
			unwanted: []string{"dataLayer", "color:red", "Enable JavaScript", "All rights reserved", "Moles are not gophers", "Template text", "World"},
		},
		{
			// Too short for readability: the fallback picks <main>.
			path:     "/short.html",
			want:     []string{"Title: Short", "Status\n\nAll systems operational.\n\nLast checked today."},
			unwanted: []string{"Menu", "Footer text", "x()"},
		},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got := e.b.Scrape(t.Context(), e.url(tc.path), 4000, "")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
			for _, u := range tc.unwanted {
				if strings.Contains(got, u) {
					t.Errorf("result contains %q:\n%s", u, got)
				}
			}
			if strings.Contains(got, "\n\n\n") || strings.Contains(got, page.Marker) {
				t.Errorf("blank lines not collapsed or unexpected footer:\n%s", got)
			}
		})
	}
}

func TestScrapeChainReturnsAllTextOnce(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	u := e.url("/long.html")
	whole := e.b.Scrape(t.Context(), u, 1<<20, "")
	if strings.Contains(whole, page.Marker) {
		t.Fatal("whole page came with a footer")
	}
	parts := walk(t, e.b.Scrape(t.Context(), u, 700, ""), func(tok string) string {
		return e.b.Scrape(t.Context(), "https://ignored.example/", 700, tok)
	})
	if len(parts) < 5 {
		t.Fatalf("only %d parts", len(parts))
	}
	for i, p := range parts {
		if n := utf8.RuneCountInString(p); n > 700 {
			t.Errorf("part %d has %d characters", i, n)
		}
	}
	if got := strings.Join(parts, ""); got != whole {
		t.Errorf("joined parts differ from the whole page:\n%q\nwant\n%q", got, whole)
	}
	for i := range 60 {
		if n := strings.Count(whole, "Paragraph "+pad3(i)+"."); n != 1 {
			t.Errorf("paragraph %d appears %d times", i, n)
		}
	}
}

func pad3(i int) string {
	return string([]byte{byte('0' + i/100), byte('0' + i/10%10), byte('0' + i%10)})
}

func TestScrapeMessages(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	guarded := newEnv(t, fetch.Options{Allowlist: []string{}})
	guarded.srv = e.srv
	for _, tc := range []struct {
		name, url, want string
		b               *Browser
	}{
		{"not a URL", "not a url", "Invalid URL.", e.b},
		{"empty", "", "Invalid URL.", e.b},
		{"ftp", "ftp://example.com/file", "Invalid URL.", e.b},
		{"file", "file:///etc/passwd", "Invalid URL.", e.b},
		{"metadata", "http://169.254.169.254/latest/meta-data/", "Blocked URL: http://169.254.169.254/latest/meta-data/ (cloud metadata address 169.254.169.254)", e.b},
		{"octal loopback", "http://0177.0.0.1/", `Blocked URL: http://0177.0.0.1/ (non-canonical IP address spelling "0177.0.0.1" (= 127.0.0.1))`, e.b},
		{"test server without allowlist", e.url("/utf8.html"), "Blocked URL: " + e.url("/utf8.html") + " (non-public address 127.0.0.1)", guarded.b},
		{"404", e.url("/missing"), "Failed to fetch " + e.url("/missing") + ": HTTP 404 Not Found", e.b},
		{"pdf", e.url("/doc.pdf"), "This URL is a PDF; use pdf_to_text to read it.", e.b},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.Scrape(t.Context(), tc.url, 4000, ""); got != tc.want {
				t.Errorf("Scrape = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestContinuationTokenRejected(t *testing.T) {
	e := newEnv(t, fetch.Options{})
	u := e.url("/long.html")
	_, _, tok := pagetest.ParseFooter(e.b.Scrape(t.Context(), u, 500, ""))
	pdfTok, _ := e.signer.Sign("pdf_to_text", pdfToken{URL: u})
	forged, _ := page.NewSigner([]byte("someone else"), nil).Sign("scrape_url", scrapeToken{URL: "http://169.254.169.254/"})
	for _, tc := range []struct{ name, tool, token, want string }{
		{"forged", "scrape_url", forged, "Invalid continuation token: signature mismatch"},
		{"truncated", "scrape_url", tok[:len(tok)-3], "Invalid continuation token: malformed signature"},
		{"altered", "scrape_url", "x" + tok[1:], "Invalid continuation token: signature mismatch"},
		{"other tool", "scrape_url", pdfTok, "Invalid continuation token: token was issued for another tool"},
		{"scrape token to pdf", "pdf_to_text", tok, "Invalid continuation token: token was issued for another tool"},
		{"scrape token to files", "search_and_fetch", tok, "Invalid continuation token: token was issued for another tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			switch tc.tool {
			case "scrape_url":
				got = e.b.Scrape(t.Context(), u, 500, tc.token)
			case "pdf_to_text":
				got = e.b.PDF(t.Context(), u, 500, tc.token)
			default:
				got = e.b.SearchAndFetch(t.Context(), FilesRequest{Query: "x", FileType: "pdf", Token: tc.token})
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("expired", func(t *testing.T) {
		e.now = epoch.Add(page.TTL + time.Second)
		defer func() { e.now = epoch }()
		if got, want := e.b.Scrape(t.Context(), u, 500, tok), "Invalid continuation token: token expired"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

// TestBookLengthPageUsesTheFallback: a page with more text than readability
// is given still comes out whole and without navigation, scripts, the
// sidebar or the footer.
func TestBookLengthPageUsesTheFallback(t *testing.T) {
	page := benchPage(1 << 20)
	p, err := Extract([]byte(page), "text/html; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	last := strings.Count(page, "段落。") - 1
	for _, want := range []string{"第000段落。", "第" + pad3(last%1000) + "段落。", "道路の状態も改善された"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if got := strings.Count(p.Text, "段落。"); got != last+1 {
		t.Errorf("%d paragraphs, want %d", got, last+1)
	}
	for _, junk := range []string{"Section", "Related story", "© Bench", "var a=1", ".c{color"} {
		if strings.Contains(p.Text, junk) {
			t.Errorf("text has %q", junk)
		}
	}
}

func BenchmarkExtract1MB(b *testing.B) {
	body := []byte(benchPage(1 << 20))
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		p, err := Extract(body, "text/html; charset=utf-8")
		if err != nil || len(p.Text) < 100_000 {
			b.Fatalf("Extract: %d chars, %v", len(p.Text), err)
		}
	}
}

// benchPage is a news-like page of about size bytes: navigation, scripts,
// an article of paragraphs with inline markup, a sidebar and a footer.
func benchPage(size int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><title>Bench</title>`)
	b.WriteString("<script>" + strings.Repeat("var a=1;", 2000) + "</script><style>" + strings.Repeat(".c{color:red}", 500) + "</style></head><body>")
	b.WriteString("<header><nav><ul>" + strings.Repeat(`<li><a href="/x">Section</a></li>`, 50) + "</ul></nav></header><main><article><h1>Bench</h1>")
	for i := 0; b.Len() < size-4000; i++ {
		b.WriteString(`<p>第` + pad3(i%1000) + `段落。The <a href="/ref">committee</a> met again to discuss <em>the harvest</em>, the weather and the state of the roads. 今年の収穫は例年より多く、道路の状態も改善されたと報告された。</p>` + "\n")
		if i%20 == 0 {
			b.WriteString(`<div class="ad"><img src="/ad.png" alt="ad"><span>Advertisement</span></div>`)
		}
	}
	b.WriteString("</article></main><aside>" + strings.Repeat(`<a href="/r">Related story</a>`, 50) + "</aside><footer>© Bench</footer></body></html>")
	return b.String()
}
