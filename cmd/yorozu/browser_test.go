package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var screenshotDir = flag.String("screenshots", "", "directory where the browser test saves its screenshots (login, chat, notes, phone)")

// chromium finds Debian's chromium (installed by .ci/run). Without it the
// browser test is skipped locally and fails under CI.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it with apt-get")
	}
	t.Skip("chromium is not installed (apt-get install chromium fonts-noto-cjk)")
	return ""
}

// browserPage is one headless tab. Script errors, dialogs (an alert is what
// an XSS payload would raise) and console errors are kept for the test.
type browserPage struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

func newBrowserPage(t *testing.T) *browserPage {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // root in CI
		chromedp.WindowSize(1200, 800),
		chromedp.Flag("lang", "ja-JP"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
	})
	b := &browserPage{t: t, ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.problem("script error: %s", e.ExceptionDetails.Text+" "+exceptionText(e.ExceptionDetails))
		case *page.EventJavascriptDialogOpening:
			b.problem("a dialog opened: %q", e.Message)
			go func() { _ = chromedp.Do(ctx, dismissDialog()) }()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return b
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

func dismissDialog() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		return chromedp.Void{}, err
	}
}

func (b *browserPage) problem(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

// noProblems fails the test on any script error or dialog so far.
func (b *browserPage) noProblems(when string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("%s: %s", when, p)
	}
	b.problems = nil
}

func (b *browserPage) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// eval runs JavaScript (awaiting a promise) and returns its JSON value.
func evalIn[T any](b *browserPage, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript condition until it is true.
func (b *browserPage) waitJS(what, cond string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		b.t.Fatalf("waiting for %s (%s): %v", what, cond, err)
	}
}

// screenshot saves the viewport as name.png under -screenshots.
func (b *browserPage) screenshot(name string) {
	b.t.Helper()
	if *screenshotDir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(*screenshotDir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func jsString(s string) string {
	return "`" + strings.NewReplacer("`", "\\`", "\\", "\\\\", "${", "\\${").Replace(s) + "`"
}

// xssPayload would set window.pwned (or open an alert) if any of it ran.
const xssPayload = `<script>window.pwned = 1; alert(1)</script>` +
	` <img src="x" onerror="window.pwned = 2; alert(2)">` +
	` [押して](javascript:window.pwned=3) <a href="javascript:window.pwned=4">リンク</a>`

// TestAdminPageInBrowser drives the real page in chromium against a whole
// yorozu (run with a fake Ollama and a real database).
func TestAdminPageInBrowser(t *testing.T) {
	b := newBrowserPage(t)
	const password = "correct horse battery staple"
	h := start(t, map[string]string{"ADMIN_PASSWORD": password})

	// Logged out, the page sends the visitor to the login.
	b.do("open the page", chromedp.Navigate(h.httpURL+"/"), chromedp.WaitVisible(chromedp.CSS("#password")))
	if loc, _ := chromedp.Run(b.ctx, chromedp.Location()); !strings.Contains(loc, "/login?next=") {
		t.Errorf("logged out, / went to %s", loc)
	}
	b.screenshot("login")
	b.do("wrong password", chromedp.SendKeys(chromedp.CSS("#password"), "wrong"), chromedp.Click(chromedp.CSS("#login-form button")))
	b.waitJS("the wrong-password message", `document.querySelector('#login-error').textContent.includes('違います')`)
	b.do("log in", chromedp.Clear(chromedp.CSS("#password")), chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Click(chromedp.CSS("#login-form button")), chromedp.WaitVisible(chromedp.CSS("#input")))
	b.noProblems("login")

	// Markdown rules, in the real browser: the price rule, the open fence,
	// and what the sanitiser leaves of an XSS payload.
	rules := evalIn[map[string]string](b, `import('/static/js/markdown.js').then(m => ({
		price: m.toHTML('$100 から $200'),
		inline: m.toHTML('面積 $x^2$ と $5'),
		spaced: m.toHTML('$ x$'),
		escaped: m.toHTML('\\$x$'),
		digit: m.toHTML('$x$1'),
		newline: m.toHTML('$a\nb$'),
		fence: m.toHTML('~~~\ncode', true),
		code: m.toHTML('`+"`$x$`"+`'),
		xss: m.toHTML(`+jsString(xssPayload)+`),
	}))`)
	for name, want := range map[string]bool{"price": false, "inline": true, "spaced": false, "escaped": false, "digit": false, "newline": false, "code": false} {
		if got := strings.Contains(rules[name], "data-tex"); got != want {
			t.Errorf("math in %s = %v, want %v: %s", name, got, want, rules[name])
		}
	}
	if !strings.Contains(rules["fence"], "<pre><code>code") {
		t.Errorf("an open fence while streaming renders as %s", rules["fence"])
	}
	if x := strings.ToLower(rules["xss"]); strings.Contains(x, "<script") || strings.Contains(x, "onerror") || strings.Contains(x, `href="javascript`) {
		t.Errorf("the sanitiser left script in: %s", rules["xss"])
	}

	// A phone: one column.
	b.do("phone width", chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#input")))
	cols := evalIn[string](b, `getComputedStyle(document.querySelector('.chat')).gridTemplateColumns`)
	if strings.Contains(strings.TrimSpace(cols), " ") {
		t.Errorf("at 390 px the chat has columns %q, want one", cols)
	}
	b.screenshot("phone")
	b.noProblems("phone")
}

// TestStatusBannerNamesTheProblem: the admin page's status banner shows what
// /readyz says, with the fix: a model not pulled (the `ollama pull` to run)
// and a chat model without tool support.
func TestStatusBannerNamesTheProblem(t *testing.T) {
	b := newBrowserPage(t)
	const password = "correct horse battery staple"
	h := startHarness(t, map[string]string{"ADMIN_PASSWORD": password, "DEFAULT_MODEL": "gemma3"}, func(h *harness) {
		h.ollama.AddModel("gemma3", "completion")
		h.ollama.RemoveModel(embedModel)
	})
	b.do("log in", chromedp.Navigate(h.httpURL+"/login"), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#password"), password), chromedp.Click(chromedp.CSS("#login-form button")),
		chromedp.WaitVisible(chromedp.CSS("#input")))
	b.waitJS("the status banner", `!document.querySelector('#status').hidden`)
	text := evalIn[string](b, `document.querySelector('#status').innerText`)
	for _, want := range []string{"一部の機能が使えません", "❌ models", "ollama pull bge-m3", "tools go through structured output"} {
		if !strings.Contains(text, want) {
			t.Errorf("the status banner does not say %q:\n%s", want, text)
		}
	}
	b.screenshot("status")
	b.noProblems("status banner")
}
