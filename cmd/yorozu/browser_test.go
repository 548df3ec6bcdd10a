package main

// The browser harness: a headless chromium driving the real admin page of a
// whole yorozu (run with a fake Discord, a fake Ollama and a real database).
// A test starts one with openAdmin and then clicks, types, drags and waits on
// conditions through adminBrowser's helpers; -screenshots keeps a PNG of
// each stage.

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

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

var screenshotDir = flag.String("screenshots", "", "directory where the browser tests save a screenshot of each stage")

// chromium finds Debian's chromium (.ci/run installs it). The browser tests
// fail without it: they are how the page is proven.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: apt-get install -y chromium fonts-noto-cjk (.ci/run does)")
	return ""
}

// browserPage is one headless tab. Script errors, dialogs (an alert is what
// an XSS payload would raise) and CSP violations are kept for the test.
type browserPage struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

// sanitiserReport is the CSP report chromium files when DOMPurify parses
// markup with an inline handler (onerror=…) into its inert document: the
// policy refusing it there is a second lock, not a fault; nothing runs, and
// the tests' inert checks look at what reaches the page.
const sanitiserReport = "CSP violation: script-src-attr inline at "

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
	ctx, cancelTime := context.WithTimeout(ctx, 4*time.Minute)
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
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				b.problem("console error: %s", consoleText(e.Args))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	// CSP violations are reported to the page, not to the console API.
	b.do("watch for CSP violations", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `document.addEventListener('securitypolicyviolation', (e) =>
				console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber + ' ' + e.sample))`,
		})
		return err
	}))
	return b
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

func consoleText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a.Description != "":
			parts = append(parts, a.Description)
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
		}
	}
	return strings.Join(parts, " ")
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

// noProblems fails the test on any script error, console error, CSP
// violation or dialog so far; allowed are substrings of problems expected
// at this stage (a toast's console.error of a refused request).
func (b *browserPage) noProblems(when string, allowed ...string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
next:
	for _, p := range b.problems {
		if strings.Contains(p, sanitiserReport) && strings.Contains(p, "/static/vendor/purify.js:") {
			continue
		}
		for _, a := range allowed {
			if strings.Contains(p, a) {
				continue next
			}
		}
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

// evalIn runs JavaScript (awaiting a promise) and returns its JSON value.
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
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for {
		_, err = chromedp.Run(b.ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(time.Until(deadline))))
		// A page still loading (after open or a reload) can drop the
		// script's context under the poll: poll the new page.
		if err == nil || !strings.Contains(err.Error(), "Cannot find context with specified id") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		b.screenshot("failed")
		text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('main')?.innerText ?? ''`))
		b.t.Fatalf("waiting for %s (%s): %v\nthe page reads:\n%.2000s", what, cond, err, text)
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

// click clicks the first element matching the CSS selector, once it is
// shown, with the mouse at its middle (as a person would: a screen that
// redraws the element meanwhile gets the click on the new one).
func (b *browserPage) click(sel string) {
	b.t.Helper()
	b.clickAt(sel, fmt.Sprintf(`document.querySelector(%s)`, jsString(sel)))
}

// clickText clicks the first element matching sel whose text contains text.
func (b *browserPage) clickText(sel, text string) {
	b.t.Helper()
	b.clickAt(fmt.Sprintf("%s reading %q", sel, text),
		fmt.Sprintf(`[...document.querySelectorAll(%s)].find((e) => e.textContent.includes(%s))`, jsString(sel), jsString(text)))
}

// clickAt clicks the middle of the element find (a JavaScript expression)
// gives, once it is there, shown and not covered.
func (b *browserPage) clickAt(what, find string) {
	b.t.Helper()
	point := fmt.Sprintf(`(() => {
		const e = %s;
		if (!e) return null;
		e.scrollIntoView({block: 'nearest'});
		const r = e.getBoundingClientRect();
		if (!r.width || !r.height) return null;
		const x = r.left + r.width / 2, y = r.top + r.height / 2;
		const at = document.elementFromPoint(x, y);
		return at && (at === e || e.contains(at)) ? [x, y] : null;
	})()`, find)
	b.waitJS(what+" to click", point+" !== null")
	xy := evalIn[[]float64](b, point)
	if len(xy) != 2 {
		b.t.Fatalf("click %s: it went away", what)
	}
	b.do("click "+what, chromedp.MouseClickXY(xy[0], xy[1]))
}

// typeInto puts text into the field (replacing what it held), as typing
// would: the field gets input events.
func (b *browserPage) typeInto(sel, text string) {
	b.t.Helper()
	b.do("type into "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	evalIn[bool](b, fmt.Sprintf(`(document.querySelector(%s).value = '') === ''`, jsString(sel)))
	b.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// keys sends key presses to the focused element (kb.* names for special keys).
func (b *browserPage) keys(what string, keys ...string) {
	b.t.Helper()
	for _, k := range keys {
		b.do(what, chromedp.KeyEvent(k))
	}
}

// ctrlEnter presses Ctrl+Enter in the focused element.
func (b *browserPage) ctrlEnter() {
	b.t.Helper()
	b.do("Ctrl+Enter", chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl)))
}

// center is the middle of the first element matching sel, in viewport
// pixels, after scrolling it into view.
func (b *browserPage) center(sel string) (x, y float64) {
	b.t.Helper()
	r := evalIn[[]float64](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.scrollIntoView({block: 'center'});
		const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, r.top, r.bottom]; })()`, jsString(sel)))
	return r[0], r[1]
}

// rect is the bounding box (left, top, right, bottom) of the first element
// matching sel, in viewport pixels.
func (b *browserPage) rect(sel string) [4]float64 {
	b.t.Helper()
	r := evalIn[[]float64](b, fmt.Sprintf(`(() => { const r = document.querySelector(%s).getBoundingClientRect();
		return [r.left, r.top, r.right, r.bottom]; })()`, jsString(sel)))
	return [4]float64{r[0], r[1], r[2], r[3]}
}

// drag presses the mouse on the middle of from, moves it in steps to (x, y)
// and releases it there: a real mouse drag, as the page's pointer events see it.
func (b *browserPage) drag(from string, x, y float64) {
	b.t.Helper()
	fx, fy := b.center(from)
	b.do("drag "+from, chromedp.DragAndDropXY(fx, fy, x, y, 15))
}

// colorScheme makes the page see the system's light or dark preference.
func (b *browserPage) colorScheme(scheme string) {
	b.t.Helper()
	b.do("prefers-color-scheme "+scheme, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	}))
}

func jsString(s string) string {
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`", "${", "\\${").Replace(s) + "`"
}

// adminBrowser is a browser logged in to a running yorozu's admin page.
type adminBrowser struct {
	*browserPage
	h *harness
}

// openAdmin starts yorozu with env (ADMIN_PASSWORD is set for it) and logs
// the browser in through the login form.
func openAdmin(t *testing.T, env map[string]string) *adminBrowser {
	t.Helper()
	return openAdminPrepared(t, env, nil)
}

// openAdminPrepared is openAdmin with the fakes set up by prep before
// yorozu starts.
func openAdminPrepared(t *testing.T, env map[string]string, prep func(*harness)) *adminBrowser {
	t.Helper()
	b := newBrowserPage(t)
	all := map[string]string{"ADMIN_PASSWORD": adminPassword}
	for k, v := range env {
		all[k] = v
	}
	a := &adminBrowser{browserPage: b, h: startHarness(t, all, prep)}
	a.open("/")
	b.do("log in", chromedp.WaitVisible(chromedp.CSS("#password")))
	b.typeInto("#password", adminPassword)
	b.do("log in", chromedp.Click(chromedp.CSS("#login-form button")), chromedp.WaitVisible(chromedp.CSS("#logout")))
	return a
}

// open goes to path on the admin page and waits for it to load.
func (a *adminBrowser) open(path string) {
	a.t.Helper()
	a.do("open "+path, chromedp.Navigate(a.h.httpURL+path))
}

// reload loads the page again.
func (a *adminBrowser) reload() {
	a.t.Helper()
	a.do("reload", chromedp.Reload())
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
