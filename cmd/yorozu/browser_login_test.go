package main

import (
	"context"
	"net/url"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestLoginNextStaysOnTheSite: after logging in, a next that the browser
// would read as another host (a backslash, a tab, two slashes, a full URL,
// javascript:) lands on the top page of this site; a path here is kept.
func TestLoginNextStaysOnTheSite(t *testing.T) {
	b := newBrowserPage(t)
	const password = "correct horse battery staple"
	h := start(t, map[string]string{"ADMIN_PASSWORD": password})
	origin, err := url.Parse(h.httpURL)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ next, want string }{
		{`/\evil.example`, "/"},
		{"/\t/evil.example", "/"},
		{"//evil.example", "/"},
		{"https://evil.example/", "/"},
		{"javascript:alert(1)", "/"},
		{"/notes?x=1", "/notes?x=1"},
	}
	for i, c := range cases {
		b.do("log in with next="+c.next,
			chromedp.Navigate(h.httpURL+"/login?next="+url.QueryEscape(c.next)), chromedp.WaitVisible(chromedp.CSS("#password")),
			chromedp.SendKeys(chromedp.CSS("#password"), password), chromedp.Click(chromedp.CSS("#login-form button")))
		b.do("leave the login page for "+c.want, chromedp.WaitNotPresent(chromedp.CSS("#login-form")), chromedp.WaitVisible(chromedp.CSS("main")))
		path, host := evalIn[string](b, `location.pathname + location.search`), evalIn[string](b, `location.host`)
		if host != origin.Host || path != c.want {
			t.Errorf("next=%q landed on %s%s, want %s%s", c.next, host, path, origin.Host, c.want)
		}
		if i == 0 {
			b.screenshot("login-next-elsewhere")
		}
		// Log out for the next case: leave the page first, so none of its
		// requests can see the login end and turn the next navigation away
		// (net::ERR_ABORTED), then forget the login cookie.
		b.do("log out", chromedp.Navigate("about:blank"), chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{})
			return err
		}))
	}
}
