package browse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"golang.org/x/net/html"
)

// extractPages are the pages the shortcuts of Extract are checked on: the
// testdata pages, the benchmark pages and some shapes that exercise the
// corners of readerable and innerText.
func extractPages(t *testing.T) map[string]string {
	t.Helper()
	pages := map[string]string{
		"bench":    benchPage(200 << 10),
		"news":     newsPage(300 << 10),
		"long":     longArticle(60),
		"no text":  "<html><body><p>Hi.</p></body></html>",
		"p in li":  "<ul><li><p>" + strings.Repeat("Listed words here. ", 40) + "</p></li></ul>",
		"hidden":   `<div><p style="display:none">` + strings.Repeat("Hidden words here. ", 40) + `</p><p>Short.</p></div>`,
		"comments": `<div><p class="comment">` + strings.Repeat("Comment words. ", 60) + `</p></div>`,
		"br divs":  "<div>" + strings.Repeat("A line of words in a div, broken by br.<br>", 30) + "</div>",
		"pre and table": "<article><pre>  keep   this\n\n\n  spacing </pre><table><tr><td>a</td><td>b</td></tr></table>" +
			`<p aria-hidden="true">gone</p><p>x&nbsp;y <b>bold</b><br><br><br>after</p></article>`,
		"math": `<p>Inline <math><semantics><mi>x</mi><annotation encoding="application/x-tex">x^2</annotation></semantics></math> and</p>` +
			`<math display="block"><annotation encoding="application/x-tex"> \sum </annotation></math>` +
			`<mjx-container display="true"><span data-latex="\frac{1}{2}"></span></mjx-container>`,
	}
	for _, name := range []string{"utf8.html", "short.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pages[name] = string(b)
	}
	for _, name := range []string{"sjis.html", "eucjp.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pages[name] = decode(b, "text/html")
	}
	return pages
}

func parsePage(t *testing.T, src string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	removeElements(doc, neverText)
	return doc
}

func TestReaderableAgreesWithCheckDocument(t *testing.T) {
	for name, src := range extractPages(t) {
		t.Run(name, func(t *testing.T) {
			ps := readability.NewParser()
			doc := parsePage(t, src)
			if got, want := readerable(&ps, doc), ps.CheckDocument(doc); got != want {
				t.Errorf("readerable = %v, CheckDocument = %v", got, want)
			}
		})
	}
}

func TestInnerTextAgreesWithReadability(t *testing.T) {
	for name, src := range extractPages(t) {
		t.Run(name, func(t *testing.T) {
			doc := parsePage(t, src)
			if got, want := innerText(doc), render.InnerText(doc); got != want {
				t.Errorf("innerText differs from render.InnerText:\n%q\nwant\n%q", got, want)
			}
			ps := readability.NewParser()
			art, err := ps.ParseAndMutate(doc, nil)
			if err != nil || art.Node == nil {
				return
			}
			if got, want := innerText(art.Node), render.InnerText(art.Node); got != want {
				t.Errorf("innerText of the article differs from render.InnerText:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestUTF8BodyKeepsValidUTF8(t *testing.T) {
	body := []byte("<p>今日は</p>")
	if got := utf8Body(body, "text/html; charset=utf-8"); &got[0] != &body[0] {
		t.Error("valid UTF-8 was copied")
	}
	if got := string(utf8Body([]byte("<p>a\xffb</p>"), "text/html; charset=utf-8")); got != "<p>a\uFFFDb</p>" {
		t.Errorf("invalid UTF-8 became %q", got)
	}
}

// BenchmarkExtractNews1MB extracts a news page of 1 MB shaped like the
// ones users paste: most of the bytes are markup, inline scripts, styles,
// SVG icons and a framework's JSON state, and the article is a few dozen
// kilobytes of text among navigation, ads, related links and comments.
func BenchmarkExtractNews1MB(b *testing.B) {
	body := []byte(newsPage(1 << 20))
	p, err := Extract(body, "text/html; charset=utf-8")
	if err != nil || !strings.Contains(p.Text, "Paragraph 199 of the report") {
		b.Fatalf("Extract lost the article: %d chars, %v", len(p.Text), err)
	}
	for _, junk := range []string{"Mega menu", "Reader comment", "Related story", "Footer link", "Advertisement", "Share"} {
		if strings.Contains(p.Text, junk) {
			b.Fatalf("Extract kept %q", junk)
		}
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Extract(body, "text/html; charset=utf-8"); err != nil {
			b.Fatal(err)
		}
	}
}

// newsPage is a long-read page of about size bytes, built like the pages of
// large publishers and encyclopedias: a long head with metadata, CSS and
// tracking scripts; a header with a mega menu and SVG icons; an article of
// 200 paragraphs (80 kB of text) with headings, a figure, lists, quotes, a
// table, ad slots, share buttons and a list of references; a sidebar of
// related stories; reader comments; a footer full of links; and the client
// framework's JSON state filling the rest.
func newsPage(size int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">` +
		`<meta name="viewport" content="width=device-width, initial-scale=1">` +
		`<title>Harvest beats forecasts as roads improve | Example News</title>` +
		`<meta property="og:title" content="Harvest beats forecasts as roads improve">` +
		`<meta property="og:description" content="The committee met again to discuss the harvest.">` +
		`<link rel="canonical" href="https://news.example.com/2026/03/harvest">`)
	for i := range 20 {
		fmt.Fprintf(&b, `<link rel="preload" href="/_next/static/chunks/%04d.js" as="script">`, i)
	}
	b.WriteString(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Harvest beats forecasts as roads improve"}</script>`)
	b.WriteString("<style>" + strings.Repeat(".c-nav__item--active>a:hover{color:#123456;border-bottom:2px solid currentColor}\n", 800) + "</style>")
	b.WriteString("<script>" + strings.Repeat("window.dataLayer=window.dataLayer||[];dataLayer.push({event:'pv',id:1});\n", 300) + "</script>")
	b.WriteString(`</head><body class="page page--article"><div id="__next"><div class="layout">`)

	icon := `<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2zm0 18c-4.41 0-8-3.59-8-8s3.59-8 8-8 8 3.59 8 8-3.59 8-8 8z"></path></svg>`
	b.WriteString(`<header class="site-header"><div class="site-header__inner"><a class="logo" href="/">` + icon + `Example News</a>`)
	b.WriteString(`<nav class="mega-menu" aria-label="Main"><ul class="mega-menu__list">`)
	for i := range 12 {
		fmt.Fprintf(&b, `<li class="mega-menu__item"><a class="mega-menu__link" href="/section/%d">Section %d</a><div class="mega-menu__panel"><ul>`, i, i)
		for j := range 20 {
			fmt.Fprintf(&b, `<li><a class="mega-menu__sublink" href="/section/%d/%d">Mega menu item %d.%d</a></li>`, i, j, i, j)
		}
		b.WriteString(`</ul></div></li>`)
	}
	b.WriteString(`</ul></nav><button class="search-toggle" aria-label="Search">` + icon + `</button></div></header>`)

	b.WriteString(`<main id="main" class="main"><div class="container"><div class="grid"><article class="article" itemscope itemtype="https://schema.org/NewsArticle">`)
	b.WriteString(`<header class="article__header"><h1 class="article__title" itemprop="headline">Harvest beats forecasts as roads improve</h1>` +
		`<div class="article__meta"><span class="byline">By <a href="/authors/a-writer" rel="author">A. Writer</a></span> <time datetime="2026-03-04T05:06:07Z">4 March 2026</time></div>` +
		`<ul class="share">` + strings.Repeat(`<li><a class="share__link" href="https://social.example/share?u=x">`+icon+`<span>Share</span></a></li>`, 5) + `</ul></header>`)
	b.WriteString(`<figure class="article__figure"><picture><source srcset="/img/harvest-800.webp 800w, /img/harvest-1600.webp 1600w" type="image/webp"><img src="/img/harvest-800.jpg" alt="Fields at harvest" width="800" height="450" loading="lazy"></picture><figcaption>Fields at harvest time. Photo: Example News</figcaption></figure>`)
	b.WriteString(`<div class="article__body" itemprop="articleBody">`)
	for i := range 200 {
		if i%10 == 0 && i > 0 {
			fmt.Fprintf(&b, `<h2 id="part-%d">Part %d: the state of the roads</h2>`, i/10, i/10)
		}
		fmt.Fprintf(&b, `<p>Paragraph %03d of the report. The <a href="/topics/committee">committee</a> met again on Tuesday to discuss <em>the harvest</em>, the weather and the state of the roads, which, according to the regional office, have improved markedly since the spring. Farmers said yields were higher than in any of the previous five years; 今年の収穫は例年より多く、道路の状態も改善されたと報告された。</p>`, i)
		switch i % 16 {
		case 5:
			b.WriteString(`<div class="ad-slot ad-slot--inline" data-slot="inline"><div class="ad-slot__label">Advertisement</div><div id="gpt-ad-1"></div><script>googletag.cmd.push(function(){googletag.display('gpt-ad-1')});</script></div>`)
		case 9:
			b.WriteString(`<aside class="related-inline"><h3>Read more</h3><ul><li><a href="/a">Roads: what the budget means</a></li><li><a href="/b">Five years of record harvests</a></li></ul></aside>`)
		case 12:
			b.WriteString(`<ul class="article__list"><li>Wheat: up 12 per cent on last year</li><li>Barley: up 8 per cent</li><li>Rice: unchanged, despite the late rains</li></ul>`)
		case 14:
			b.WriteString(`<blockquote><p>We have not seen a season like this in a generation, and the new roads mean the grain reaches the market before it spoils.</p></blockquote>`)
		}
	}
	b.WriteString(`<table class="data"><thead><tr><th>Crop</th><th>2025</th><th>2026</th></tr></thead><tbody>`)
	for _, crop := range []string{"Wheat", "Barley", "Rice", "Soy", "Maize"} {
		fmt.Fprintf(&b, `<tr><td>%s</td><td>1,204</td><td>1,348</td></tr>`, crop)
	}
	b.WriteString(`</tbody></table><h2>References</h2><ol class="references">`)
	for i := range 120 {
		fmt.Fprintf(&b, `<li id="cite-%d"><a href="#ref-%d">^</a> <cite class="citation">Regional Office (2026). <a class="external" href="https://stats.example.org/harvest/%d">"Harvest statistics, table %d"</a>. Retrieved 4 March 2026.</cite></li>`, i, i, i, i)
	}
	b.WriteString(`</ol></div>`)
	b.WriteString(`<div class="newsletter-signup"><form action="/subscribe"><label>Get the morning briefing<input type="email" name="email"></label><button>Sign up</button></form></div></article>`)

	b.WriteString(`<aside class="sidebar"><h2>Most read</h2><ol class="most-read">`)
	for i := range 150 {
		fmt.Fprintf(&b, `<li class="most-read__item"><a class="card" href="/story/%d">`+icon+`<img src="/img/thumb-%d.jpg" alt="" width="120" height="80" loading="lazy"><span class="card__title">Related story number %d about something else</span></a></li>`, i, i, i)
	}
	b.WriteString(`</ol></aside></div>`)

	b.WriteString(`<section class="comments" id="comments"><h2>Comments</h2>`)
	for i := range 250 {
		fmt.Fprintf(&b, `<div class="comment" id="comment-%d"><div class="comment__head"><img class="avatar" src="/avatar/%d.png" alt=""><span class="comment__author">reader%d</span> <time>2 hours ago</time></div><div class="comment__body"><p>Reader comment %d: good news for the farmers, but what about the bridges?</p></div><div class="comment__actions"><button>`+icon+`Reply</button><button>`+icon+`Like</button></div></div>`, i, i, i, i)
	}
	b.WriteString(`</section></div></main>`)

	b.WriteString(`<footer class="site-footer"><div class="site-footer__links">`)
	for i := range 150 {
		fmt.Fprintf(&b, `<a class="site-footer__link" href="/footer/%d">Footer link %d</a>`, i, i)
	}
	b.WriteString(`</div><p>© 2026 Example News. All rights reserved.</p></footer></div></div>`)

	// Frameworks ship the page's state as JSON, often repeating the article.
	b.WriteString(`<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"items":[`)
	for i := 0; b.Len() < size-200; i++ {
		fmt.Fprintf(&b, `{"id":%d,"type":"story","title":"Related story number %d about something else","url":"/story/%d","teaser":"The committee met again on Tuesday to discuss the harvest, the weather and the state of the roads."},`, i, i, i)
	}
	b.WriteString(`{}]}}}</script><script src="/_next/static/chunks/main.js" async></script></body></html>`)
	return b.String()
}
